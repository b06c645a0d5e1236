package org.apache.storm.grouping;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The load of each target task, as a load-aware grouping sees it: the tasks measured locally
 * (a load from 0 to 1 each) and those reported from elsewhere. A task in neither counts as fully
 * loaded (1.0), so that load-aware groupings prefer the tasks they know about.
 */
public class LoadMapping {
    private static final Load NOT_CONNECTED = new Load(false, 1.0, 1.0);

    private final AtomicReference<Map<Integer, Load>> local = new AtomicReference<>(new HashMap<>());
    private final AtomicReference<Map<Integer, Load>> remote = new AtomicReference<>(new HashMap<>());

    public LoadMapping() {
    }

    /** Replaces the locally measured loads: task to load, 0 (idle) to 1 (full). */
    public void setLocal(Map<Integer, Double> local) {
        Map<Integer, Load> newLocal = new HashMap<>();
        if (local != null) {
            for (Map.Entry<Integer, Double> e : local.entrySet()) {
                double load = e.getValue() == null ? 0.0 : e.getValue();
                newLocal.put(e.getKey(), new Load(true, load, 0.0));
            }
        }
        this.local.set(newLocal);
    }

    /** Replaces the loads reported from elsewhere. */
    public void setRemote(Map<Integer, Load> remote) {
        this.remote.set(remote == null ? new HashMap<>() : new HashMap<>(remote));
    }

    /** The load of {@code task}: the local one if measured, else the remote one, else "not connected" (fully loaded). */
    public Load getLoad(int task) {
        Load ret = local.get().get(task);
        if (ret == null) {
            ret = remote.get().get(task);
        }
        return ret == null ? NOT_CONNECTED : ret;
    }

    /** {@link #getLoad(int)}'s {@link Load#getLoad()}. */
    public double get(int task) {
        return getLoad(task).getLoad();
    }
}

package dev.egret.instance;

import dev.egret.serialization.JavaSerialization;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.hooks.IWorkerHook;
import org.apache.storm.task.WorkerUserContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's worker hooks ({@code TopologyBuilder.addWorkerHook}) in Egret.
 *
 * <p>Storm keeps them Java-serialized in {@code StormTopology.worker_hooks} and runs them
 * once per worker JVM. Egret's topology message has no such field, so the submitter
 * carries the same bytes (Base64) in the topology config under {@link #CONFIG_KEY}, and
 * every instance JVM (Egret's worker: one executor) deserializes them, calls
 * {@code start(topoConf, WorkerUserContext)} before its tasks are opened or prepared, and
 * {@code shutdown()} once when the instance stops (or the JVM exits).
 *
 * <p>Invariant: {@link #shutdown()} calls each started hook's {@code shutdown} at most once,
 * whichever of the executor and the JVM shutdown hook gets there first.
 */
public final class WorkerHooks {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerHooks.class);

    /** Config key under which the submitter carries the serialized hooks (a list of Base64 strings). */
    public static final String CONFIG_KEY = "egret.topology.worker.hooks";

    private final List<IWorkerHook> started = new ArrayList<>();
    private final AtomicBoolean shutDown = new AtomicBoolean();

    /**
     * The config to submit: {@code conf} plus the topology's worker hooks under
     * {@link #CONFIG_KEY} (unchanged when it has none).
     */
    public static Map<String, Object> carryInConfig(Map<String, Object> conf, StormTopology topology) {
        if (topology == null || topology.get_worker_hooks_size() == 0) {
            return conf;
        }
        List<String> encoded = new ArrayList<>();
        for (ByteBuffer b : topology.get_worker_hooks()) {
            ByteBuffer d = b.duplicate();
            byte[] bytes = new byte[d.remaining()];
            d.get(bytes);
            encoded.add(Base64.getEncoder().encodeToString(bytes));
        }
        Map<String, Object> out = new HashMap<>(conf);
        out.put(CONFIG_KEY, encoded);
        return out;
    }

    /** The hooks carried in {@code topoConf}, deserialized (a fresh copy per call). */
    static List<IWorkerHook> fromConfig(Map<String, Object> topoConf) throws IOException, ClassNotFoundException {
        Object v = topoConf.get(CONFIG_KEY);
        List<IWorkerHook> hooks = new ArrayList<>();
        if (!(v instanceof List)) {
            return hooks;
        }
        for (Object o : (List<?>) v) {
            if (!(o instanceof String)) {
                throw new IllegalArgumentException(CONFIG_KEY + " must hold Base64 strings, found " + o);
            }
            Object hook = JavaSerialization.deserialize(Base64.getDecoder().decode((String) o));
            if (!(hook instanceof IWorkerHook)) {
                throw new IllegalArgumentException("A worker hook is a " + hook.getClass().getName()
                        + ", not an IWorkerHook");
            }
            hooks.add((IWorkerHook) hook);
        }
        return hooks;
    }

    /** Deserializes and starts every hook in {@code topoConf}, in order. */
    void start(Map<String, Object> topoConf, WorkerUserContext context) throws IOException, ClassNotFoundException {
        for (IWorkerHook hook : fromConfig(topoConf)) {
            LOG.info("Starting worker hook {}", hook.getClass().getName());
            hook.start(topoConf, context);
            started.add(hook);
        }
    }

    int startedCount() {
        return started.size();
    }

    /** Shuts the started hooks down, once; a hook that throws does not stop the others. */
    void shutdown() {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        for (IWorkerHook hook : started) {
            try {
                hook.shutdown();
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Worker hook {} threw from shutdown", hook.getClass().getName(), e);
            }
        }
    }
}

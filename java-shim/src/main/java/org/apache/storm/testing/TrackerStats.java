package org.apache.storm.testing;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.utils.RegisteredGlobalState;

/** The counters of a tracked topology that the trackers add to, by track id. */
final class TrackerStats {
    private TrackerStats() {
    }

    /** Adds {@code n} to the counter {@code name} of the stats registered under {@code trackId}. */
    @SuppressWarnings("unchecked")
    static void add(String trackId, String name, int n) {
        Object state = RegisteredGlobalState.getState(trackId);
        if (!(state instanceof Map)) {
            throw new IllegalStateException("no tracked-topology stats are registered under " + trackId);
        }
        Object counter = ((Map<String, Object>) state).get(name);
        if (!(counter instanceof AtomicInteger)) {
            throw new IllegalStateException("the tracked-topology stats " + trackId + " have no counter " + name);
        }
        ((AtomicInteger) counter).addAndGet(n);
    }
}

package org.apache.storm.utils;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Process-wide state under generated ids, so objects that a topology serializes (bolts,
 * spouts, trackers) can reach shared state of the test that built them in the same JVM.
 */
public class RegisteredGlobalState {
    private static final Object LOCK = new Object();
    private static final Map<String, Object> STATE = new HashMap<>();

    public RegisteredGlobalState() {
    }

    /** The lock callers hold to update several entries together. */
    public static Object globalLock() {
        return LOCK;
    }

    /** Stores {@code init} under a new id and returns the id. */
    public static String registerState(Object init) {
        synchronized (LOCK) {
            String id = UUID.randomUUID().toString();
            STATE.put(id, init);
            return id;
        }
    }

    public static void setState(String id, Object init) {
        synchronized (LOCK) {
            STATE.put(id, init);
        }
    }

    /** The state under {@code id}, or null. */
    public static Object getState(String id) {
        synchronized (LOCK) {
            return STATE.get(id);
        }
    }

    public static void clearState(String id) {
        synchronized (LOCK) {
            STATE.remove(id);
        }
    }
}

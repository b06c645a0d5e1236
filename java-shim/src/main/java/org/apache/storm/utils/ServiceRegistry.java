package org.apache.storm.utils;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** Process-wide services under generated ids (e.g. a test's server that its topology calls). */
public class ServiceRegistry {
    private static final Map<String, Object> SERVICES = new ConcurrentHashMap<>();

    public ServiceRegistry() {
    }

    /** Stores {@code service} under a new id and returns the id. */
    public static String registerService(Object service) {
        if (service == null) {
            throw new IllegalArgumentException("service must not be null");
        }
        String id = UUID.randomUUID().toString();
        SERVICES.put(id, service);
        return id;
    }

    /** The service under {@code id}, or null. */
    public static Object getService(String id) {
        return SERVICES.get(id);
    }

    public static void unregisterService(String id) {
        SERVICES.remove(id);
    }
}

package dev.egret.client;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.utils.ObjectReader;

/**
 * Type checks of the config keys Egret acts on, so a bad value fails at submission with
 * its key named instead of later inside a stream manager or instance.
 */
public final class ConfigValidation {
    private ConfigValidation() {
    }

    /** @throws IllegalArgumentException naming the key and the bad value */
    public static void validateTopologyConfig(Map<String, Object> conf) {
        positiveInt(conf, Config.TOPOLOGY_WORKERS, false);
        nonNegativeInt(conf, Config.TOPOLOGY_ACKER_EXECUTORS);
        positiveInt(conf, Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, false);
        positiveInt(conf, Config.TOPOLOGY_MAX_SPOUT_PENDING, true);
        positiveInt(conf, Config.TOPOLOGY_MAX_TASK_PARALLELISM, true);
        positiveNumber(conf, Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS);
        bool(conf, Config.TOPOLOGY_DEBUG);
        bool(conf, Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION);
        nonNegativeNumber(conf, Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB);
        nonNegativeNumber(conf, Config.TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB);
    }

    private static IllegalArgumentException bad(String key, Object v, String what) {
        return new IllegalArgumentException("Invalid value for " + key + ": " + v
                + (v == null ? "" : " (" + v.getClass().getSimpleName() + ")") + "; expected " + what);
    }

    private static void positiveInt(Map<String, Object> conf, String key, boolean nullable) {
        Object v = conf.get(key);
        if (v == null) {
            if (!nullable && conf.containsKey(key)) {
                throw bad(key, null, "a positive integer");
            }
            return;
        }
        try {
            if (ObjectReader.getInt(v) < 1) {
                throw bad(key, v, "a positive integer");
            }
        } catch (IllegalArgumentException e) {
            throw bad(key, v, "a positive integer");
        }
    }

    private static void nonNegativeInt(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v == null) {
            return;
        }
        try {
            if (ObjectReader.getInt(v) < 0) {
                throw bad(key, v, "a non-negative integer");
            }
        } catch (IllegalArgumentException e) {
            throw bad(key, v, "a non-negative integer");
        }
    }

    private static void positiveNumber(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v == null) {
            return;
        }
        if (!(v instanceof Number) || !(((Number) v).doubleValue() > 0)) {
            throw bad(key, v, "a positive number");
        }
    }

    private static void nonNegativeNumber(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v == null) {
            return;
        }
        if (!(v instanceof Number) || !(((Number) v).doubleValue() >= 0)) {
            throw bad(key, v, "a non-negative number");
        }
    }

    private static void bool(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v != null && !(v instanceof Boolean)) {
            throw bad(key, v, "true or false");
        }
    }
}

package dev.egret.client;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.utils.ObjectReader;

/**
 * Client-side checks of Storm keys, mirroring Storm's own client-side validation, so a bad
 * value fails in main with its key named. Egret's own {@code egret.*} keys and every setting
 * the processes share (frame cap, batching, queue bounds, watermarks, acking, message
 * timeout) are validated and resolved by Rust at submission ({@code egret_config::settings});
 * where a key is checked here too ({@code topology.acker.executors},
 * {@code topology.message.timeout.secs}) the rule is the same: an integer, a numeric string
 * accepted, non-negative and positive respectively.
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

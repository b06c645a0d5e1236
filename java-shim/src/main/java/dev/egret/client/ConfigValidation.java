package dev.egret.client;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.utils.ObjectReader;

/**
 * Type checks of the config keys Egret acts on, so a bad value fails at submission with
 * its key named instead of later inside a stream manager or instance.
 */
public final class ConfigValidation {
    public static final String BACKPRESSURE_HIGH = "egret.backpressure.high.watermark.bytes";
    public static final String BACKPRESSURE_LOW = "egret.backpressure.low.watermark.bytes";
    /** The stream manager's default high watermark (low defaults to half of high). */
    static final long DEFAULT_HIGH_WATERMARK = 16L * 1024 * 1024;

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
        watermarks(conf);
    }

    /**
     * The stream manager's rule (it refuses to start otherwise): either watermark defaults
     * from the other (low = high / 2, high = max(2 x low, 16 MiB)); low must be below high.
     */
    private static void watermarks(Map<String, Object> conf) {
        Long high = bytes(conf, BACKPRESSURE_HIGH);
        Long low = bytes(conf, BACKPRESSURE_LOW);
        long h = high != null ? high : (low != null ? Math.max(2 * low, DEFAULT_HIGH_WATERMARK) : DEFAULT_HIGH_WATERMARK);
        long l = low != null ? low : h / 2;
        if (h == 0) {
            throw bad(BACKPRESSURE_HIGH, high, "a positive number of bytes");
        }
        if (l >= h) {
            throw new IllegalArgumentException(BACKPRESSURE_LOW + " (" + l + ") must be below "
                    + BACKPRESSURE_HIGH + " (" + h + ")");
        }
    }

    private static Long bytes(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v == null) {
            return null;
        }
        long n;
        if (v instanceof Number && ((Number) v).doubleValue() == Math.rint(((Number) v).doubleValue())) {
            n = ((Number) v).longValue();
        } else if (v instanceof String) {
            try {
                n = Long.parseLong(((String) v).trim());
            } catch (NumberFormatException e) {
                throw bad(key, v, "a non-negative integer number of bytes");
            }
        } else {
            throw bad(key, v, "a non-negative integer number of bytes");
        }
        if (n < 0) {
            throw bad(key, v, "a non-negative integer number of bytes");
        }
        return n;
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

package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backpressure watermarks are egret keys: Rust validates and resolves them at submission
 * (egret_config::settings, whose tests cover low >= high, a zero high, non-numbers and negative
 * values), so the client-side validation leaves them alone and cannot contradict that rule.
 */
class BackpressureConfigTest {
    private static final String HIGH = "egret.backpressure.high.watermark.bytes";
    private static final String LOW = "egret.backpressure.low.watermark.bytes";

    private static Map<String, Object> conf(Object high, Object low) {
        Map<String, Object> c = new HashMap<>();
        if (high != null) {
            c.put(HIGH, high);
        }
        if (low != null) {
            c.put(LOW, low);
        }
        return c;
    }

    @Test
    void watermarksAreLeftToRust() {
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(null, null)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(1000, 10)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf("700000", "100000")));
        // What Rust refuses (with the key named) is not refused differently here.
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(1000, 1000)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf("lots", null)));
    }
}

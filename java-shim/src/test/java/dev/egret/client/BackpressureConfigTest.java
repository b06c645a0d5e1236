package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The backpressure watermarks are refused at submission as the stream manager would refuse them. */
class BackpressureConfigTest {
    private static Map<String, Object> conf(Object high, Object low) {
        Map<String, Object> c = new HashMap<>();
        if (high != null) {
            c.put(ConfigValidation.BACKPRESSURE_HIGH, high);
        }
        if (low != null) {
            c.put(ConfigValidation.BACKPRESSURE_LOW, low);
        }
        return c;
    }

    @Test
    void watermarksMustHaveLowBelowHigh() {
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(null, null)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(1000, 10)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(1000L, null)));
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(null, "20000000")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConfigValidation.validateTopologyConfig(conf(1000, 1000)));
        assertTrue(e.getMessage().contains("egret.backpressure.low.watermark.bytes (1000) must be below"),
                e.getMessage());
        // Only low given, at or above the default high.
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(null, 16L * 1024 * 1024)));
        assertThrows(IllegalArgumentException.class,
                () -> ConfigValidation.validateTopologyConfig(conf(0, null)));
        assertThrows(IllegalArgumentException.class,
                () -> ConfigValidation.validateTopologyConfig(conf("lots", null)));
        assertThrows(IllegalArgumentException.class,
                () -> ConfigValidation.validateTopologyConfig(conf(-5, null)));
        // Only high given, low = high / 2: valid while high >= 1.
        assertDoesNotThrow(() -> ConfigValidation.validateTopologyConfig(conf(1, null)));
    }
}

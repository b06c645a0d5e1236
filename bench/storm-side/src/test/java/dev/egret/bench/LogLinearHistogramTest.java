package dev.egret.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The bucket layout is a contract with egret-bench's histogram.rs: same values, same buckets. */
class LogLinearHistogramTest {
    @Test
    void bucketsMatchTheRustReader() {
        assertEquals(592, LogLinearHistogram.BUCKETS);
        assertEquals(0, LogLinearHistogram.bucketOf(0));
        assertEquals(0, LogLinearHistogram.bucketOf(-5));
        assertEquals(31, LogLinearHistogram.bucketOf(31));
        assertEquals(32, LogLinearHistogram.bucketOf(32));
        assertEquals(32, LogLinearHistogram.bucketOf(33));
        assertEquals(33, LogLinearHistogram.bucketOf(34));
        assertEquals(47, LogLinearHistogram.bucketOf(63));
        assertEquals(48, LogLinearHistogram.bucketOf(64));
        assertEquals(32 + 4 * 16 + (1000 >> 5) - 16, LogLinearHistogram.bucketOf(1000));
        assertEquals(591, LogLinearHistogram.bucketOf(Long.MAX_VALUE));
    }

    @Test
    void sparseFormListsNonEmptyBuckets() {
        LogLinearHistogram h = new LogLinearHistogram();
        assertEquals("", h.toSparseString());
        h.record(2);
        h.record(2);
        h.record(40);
        assertEquals("2:2 36:1", h.toSparseString());
        assertTrue(h.count(2) == 2);
    }

    @Test
    void componentNamesAreSafeFileNames() {
        assertEquals("a_b-c.d", LatencyHook.sanitize("a/b-c.d"));
    }
}

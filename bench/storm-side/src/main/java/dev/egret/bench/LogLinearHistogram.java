package dev.egret.bench;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A thread-safe log-linear histogram of non-negative integer values (the hook's
 * milliseconds, or a spout's own microseconds).
 *
 * <p>Values below {@link #EXACT} have a bucket each; above, every power of two is
 * split into {@link #SUB_BUCKETS} equal buckets (at most 1/16 = 6.25% relative
 * width). Values at or above 2^{@link #MAX_EXPONENT} share the last bucket. The
 * bucket layout is the contract with the Rust reader ({@code egret-bench}'s
 * {@code histogram} module): change both or neither.
 */
public final class LogLinearHistogram {
    /** Values 0..EXACT-1 are counted exactly. */
    static final int EXACT = 32;
    /** Buckets per power of two above {@link #EXACT}. */
    static final int SUB_BUCKETS = 16;
    /** log2(EXACT). */
    static final int FIRST_EXPONENT = 5;
    /** Values from 2^MAX_EXPONENT ms (about 12 days) on are clamped into the last bucket. */
    static final int MAX_EXPONENT = 40;
    /** How many buckets there are. */
    public static final int BUCKETS = EXACT + (MAX_EXPONENT - FIRST_EXPONENT) * SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    /** The bucket of {@code value} (negative values count as 0). */
    public static int bucketOf(long value) {
        if (value < EXACT) {
            return (int) Math.max(0, value);
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value);
        if (exponent >= MAX_EXPONENT) {
            return BUCKETS - 1;
        }
        int sub = (int) ((value >>> (exponent - 4)) & (SUB_BUCKETS - 1));
        return EXACT + (exponent - FIRST_EXPONENT) * SUB_BUCKETS + sub;
    }

    /** Counts one value. */
    public void record(long value) {
        counts.incrementAndGet(bucketOf(value));
    }

    /** The count of bucket {@code index}. */
    public long count(int index) {
        return counts.get(index);
    }

    /** Sparse text form: space-separated {@code index:count} of the non-empty buckets. */
    public String toSparseString() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < BUCKETS; i++) {
            long c = counts.get(i);
            if (c != 0) {
                if (out.length() > 0) {
                    out.append(' ');
                }
                out.append(i).append(':').append(c);
            }
        }
        return out.toString();
    }
}

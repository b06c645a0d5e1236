package org.apache.storm.metric.internal;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Closed time buckets, each holding two sums over a span of time, read as spread evenly over the
 * span: a window gets the share of a bucket's sums that the overlap is of the bucket's span.
 * Buckets older than 10 minutes are merged into buckets of up to 3 hours / {@code numBuckets},
 * those older than 3 hours into buckets of up to a day / {@code numBuckets}, so a day of
 * history stays within a few times {@code numBuckets} buckets.
 */
final class TimeBuckets {
    static final long TEN_MIN = 10 * 60 * 1000L;
    static final long THREE_HOURS = 3 * 60 * 60 * 1000L;
    static final long ONE_DAY = 24 * 60 * 60 * 1000L;

    private static final class Bucket {
        long start;
        long end;
        long a;
        long b;

        Bucket(long start, long end, long a, long b) {
            this.start = start;
            this.end = end;
            this.a = a;
            this.b = b;
        }
    }

    private final ArrayDeque<Bucket> buckets = new ArrayDeque<>();
    private final long hoursGranularity;
    private final long dayGranularity;

    TimeBuckets(int numBuckets) {
        if (numBuckets < 2) {
            throw new IllegalArgumentException("numBuckets must be at least 2, got " + numBuckets);
        }
        this.hoursGranularity = THREE_HOURS / numBuckets;
        this.dayGranularity = ONE_DAY / numBuckets;
    }

    /** Closes a bucket over [start, end] and forgets what lies more than a day before {@code end}. */
    void add(long start, long end, long a, long b) {
        if (end < start) {
            end = start;
        }
        buckets.addLast(new Bucket(start, end, a, b));
        while (!buckets.isEmpty() && buckets.peekFirst().end <= end - ONE_DAY) {
            buckets.pollFirst();
        }
        compact(end);
    }

    private void compact(long now) {
        ArrayDeque<Bucket> out = new ArrayDeque<>();
        Bucket prev = null;
        for (Bucket b : buckets) {
            if (prev != null) {
                long granularity = prev.end <= now - THREE_HOURS ? dayGranularity
                        : prev.end <= now - TEN_MIN ? hoursGranularity : 0;
                if (granularity > 0 && b.end <= now - TEN_MIN && b.end - prev.start <= granularity) {
                    prev.end = b.end;
                    prev.a += b.a;
                    prev.b += b.b;
                    continue;
                }
                out.addLast(prev);
            }
            prev = b;
        }
        if (prev != null) {
            out.addLast(prev);
        }
        buckets.clear();
        buckets.addAll(out);
    }

    /**
     * The sums over [now - window, now] of the closed buckets plus an open one over
     * [openStart, now] holding {@code openA} and {@code openB}: {@code ret[0]} and {@code ret[1]}.
     */
    double[] sums(long now, long window, long openStart, long openA, long openB) {
        double[] ret = new double[2];
        long from = now - window;
        Iterator<Bucket> it = buckets.descendingIterator();
        while (it.hasNext()) {
            Bucket b = it.next();
            if (b.end <= from) {
                break;
            }
            share(ret, b.start, b.end, b.a, b.b, from);
        }
        share(ret, openStart, Math.max(openStart, now), openA, openB, from);
        return ret;
    }

    private static void share(double[] ret, long start, long end, long a, long b, long from) {
        if (end < from || (end == start && start < from)) {
            return;
        }
        if (start >= from) {
            ret[0] += a;
            ret[1] += b;
            return;
        }
        double part = (double) (end - from) / (end - start);
        ret[0] += a * part;
        ret[1] += b * part;
    }
}

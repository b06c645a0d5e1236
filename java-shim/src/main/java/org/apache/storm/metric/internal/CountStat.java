package org.apache.storm.metric.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.TimerTask;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A count kept over the windows of Storm's statistics: the last 10 minutes ({@code "600"}),
 * 3 hours ({@code "10800"}), a day ({@code "86400"}) and since it was made ({@code ":all-time"}).
 * Increments land in an open bucket that a timer closes every 10 minutes / {@code numBuckets};
 * a window reads the buckets it overlaps, each spread evenly over its span.
 */
public class CountStat {
    private final AtomicLong currentBucket = new AtomicLong();
    private final TimeBuckets closed;
    private final TimerTask task;
    private long bucketStart;
    private long allTime;

    /** Buckets of 10 minutes / {@code numBuckets}, on the wall clock. */
    public CountStat(int numBuckets) {
        this(numBuckets, System.currentTimeMillis(), true);
    }

    /** Starts at {@code startTime} with no timer: the caller rotates (time is simulated). */
    CountStat(int numBuckets, long startTime) {
        this(numBuckets, startTime, false);
    }

    private CountStat(int numBuckets, long startTime, boolean timer) {
        this.closed = new TimeBuckets(numBuckets);
        this.bucketStart = startTime;
        if (timer) {
            long period = Math.max(1, TimeBuckets.TEN_MIN / numBuckets);
            this.task = new TimerTask() {
                @Override
                public void run() {
                    rotateSched(System.currentTimeMillis());
                }
            };
            MetricStatTimer.TIMER.scheduleAtFixedRate(task, period, period);
        } else {
            this.task = null;
        }
    }

    public void incBy(long count) {
        currentBucket.addAndGet(count);
    }

    /** Closes the open bucket at {@code now}. */
    synchronized void rotateSched(long now) {
        long value = currentBucket.getAndSet(0);
        closed.add(bucketStart, now, value, 0);
        allTime += value;
        bucketStart = now;
    }

    /** The count of each window, keyed "600", "10800", "86400" and ":all-time". */
    public synchronized Map<String, Long> getTimeCounts() {
        return getTimeCounts(System.currentTimeMillis());
    }

    synchronized Map<String, Long> getTimeCounts(long now) {
        long open = currentBucket.get();
        Map<String, Long> ret = new HashMap<>();
        ret.put("600", Math.round(closed.sums(now, TimeBuckets.TEN_MIN, bucketStart, open, 0)[0]));
        ret.put("10800", Math.round(closed.sums(now, TimeBuckets.THREE_HOURS, bucketStart, open, 0)[0]));
        ret.put("86400", Math.round(closed.sums(now, TimeBuckets.ONE_DAY, bucketStart, open, 0)[0]));
        ret.put(":all-time", allTime + open);
        return ret;
    }

    /** Stops the timer. */
    public void close() {
        if (task != null) {
            task.cancel();
        }
    }
}

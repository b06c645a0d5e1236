package org.apache.storm.metric.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.TimerTask;

/**
 * Mean latency over the windows of Storm's statistics: the last 10 minutes ({@code "600"}),
 * 3 hours ({@code "10800"}), a day ({@code "86400"}) and since it was made ({@code ":all-time"}).
 * Each window's mean is the sum of the latencies recorded in it over their number, read from the
 * buckets the window overlaps (a timer closes the open one every 10 minutes / {@code numBuckets}).
 */
public class LatencyStat {
    private final Object currentLock = new Object();
    private final TimeBuckets closed;
    private final TimerTask task;
    private long currentLatBucket;
    private long currentCountBucket;
    private long bucketStart;
    private long allTimeLat;
    private long allTimeCount;

    /** Buckets of 10 minutes / {@code numBuckets}, on the wall clock. */
    public LatencyStat(int numBuckets) {
        this(numBuckets, System.currentTimeMillis(), true);
    }

    /** Starts at {@code startTime} with no timer: the caller rotates (time is simulated). */
    LatencyStat(int numBuckets, long startTime) {
        this(numBuckets, startTime, false);
    }

    private LatencyStat(int numBuckets, long startTime, boolean timer) {
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

    public void record(long latency) {
        synchronized (currentLock) {
            currentLatBucket += latency;
            currentCountBucket += 1;
        }
    }

    /** Closes the open bucket at {@code now} and returns its mean latency (0.0 when nothing was recorded). */
    synchronized Object getValueAndReset(long now) {
        long[] closedNow = close(now);
        return closedNow[1] == 0 ? 0.0 : (double) closedNow[0] / closedNow[1];
    }

    /** Closes the open bucket at {@code now}. */
    synchronized void rotateSched(long now) {
        close(now);
    }

    private long[] close(long now) {
        long lat;
        long count;
        synchronized (currentLock) {
            lat = currentLatBucket;
            count = currentCountBucket;
            currentLatBucket = 0;
            currentCountBucket = 0;
        }
        closed.add(bucketStart, now, lat, count);
        allTimeLat += lat;
        allTimeCount += count;
        bucketStart = now;
        return new long[] {lat, count};
    }

    /** The mean latency of each window, keyed "600", "10800", "86400" and ":all-time" (0.0 when empty). */
    public synchronized Map<String, Double> getTimeLatAvg() {
        return getTimeLatAvg(System.currentTimeMillis());
    }

    synchronized Map<String, Double> getTimeLatAvg(long now) {
        long lat;
        long count;
        synchronized (currentLock) {
            lat = currentLatBucket;
            count = currentCountBucket;
        }
        Map<String, Double> ret = new HashMap<>();
        ret.put("600", mean(closed.sums(now, TimeBuckets.TEN_MIN, bucketStart, lat, count)));
        ret.put("10800", mean(closed.sums(now, TimeBuckets.THREE_HOURS, bucketStart, lat, count)));
        ret.put("86400", mean(closed.sums(now, TimeBuckets.ONE_DAY, bucketStart, lat, count)));
        long allCount = allTimeCount + count;
        ret.put(":all-time", allCount == 0 ? 0.0 : (double) (allTimeLat + lat) / allCount);
        return ret;
    }

    private static double mean(double[] sums) {
        return sums[1] == 0 ? 0.0 : sums[0] / sums[1];
    }

    /** Stops the timer. */
    public void close() {
        if (task != null) {
            task.cancel();
        }
    }
}

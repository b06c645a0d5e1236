package org.apache.storm.metric.internal;

import java.io.Closeable;
import java.util.TimerTask;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rate of events per second over a sliding window: the window is {@code numBuckets} buckets
 * of {@code validTimeWindowInMillis / numBuckets}; the open one fills as {@link #notify} is
 * called and a timer closes it, dropping the oldest. The rate is the events of the kept buckets
 * and the open one over the time they span.
 */
public class RateTracker implements Closeable {
    private final int bucketSizeMillis;
    private final long[] bucketTime;
    private final long[] oldBuckets;
    private final AtomicLong bucketStart;
    private final AtomicLong currentBucket = new AtomicLong();
    private final TimerTask task;
    private int next;

    /** On the wall clock, with a timer closing a bucket every {@code validTimeWindowInMillis / numBuckets}. */
    public RateTracker(int validTimeWindowInMillis, int numBuckets) {
        this(validTimeWindowInMillis, numBuckets, System.currentTimeMillis(), true);
    }

    /** Starts at {@code startTime} with no timer: the caller rotates (time is simulated). */
    RateTracker(int validTimeWindowInMillis, int numBuckets, long startTime) {
        this(validTimeWindowInMillis, numBuckets, startTime, false);
    }

    private RateTracker(int validTimeWindowInMillis, int numBuckets, long startTime, boolean timer) {
        if (numBuckets < 2) {
            throw new IllegalArgumentException("numBuckets must be at least 2, got " + numBuckets);
        }
        if (validTimeWindowInMillis < numBuckets) {
            throw new IllegalArgumentException("validTimeWindowInMillis (" + validTimeWindowInMillis
                    + ") must be at least numBuckets (" + numBuckets + ")");
        }
        this.bucketSizeMillis = validTimeWindowInMillis / numBuckets;
        this.oldBuckets = new long[numBuckets - 1];
        this.bucketTime = new long[numBuckets - 1];
        this.bucketStart = new AtomicLong(startTime);
        if (timer) {
            this.task = new TimerTask() {
                @Override
                public void run() {
                    rotateBuckets(System.currentTimeMillis());
                }
            };
            MetricStatTimer.TIMER.scheduleAtFixedRate(task, bucketSizeMillis, bucketSizeMillis);
        } else {
            this.task = null;
        }
    }

    /** Counts {@code count} events. */
    public void notify(long count) {
        currentBucket.addAndGet(count);
    }

    /** Events per second over the window, up to now. */
    public synchronized double reportRate() {
        return reportRate(System.currentTimeMillis());
    }

    synchronized double reportRate(long now) {
        long events = currentBucket.get();
        long span = Math.max(0, now - bucketStart.get());
        for (int i = 0; i < oldBuckets.length; i++) {
            events += oldBuckets[i];
            span += bucketTime[i];
        }
        return span == 0 ? 0.0 : events * 1000.0 / span;
    }

    /** Stops the timer. */
    @Override
    public void close() {
        if (task != null) {
            task.cancel();
        }
    }

    /** Closes {@code numToEclipse} buckets of {@code interval} ms each, as the timer would (for simulated time). */
    final void forceRotate(int numToEclipse, long interval) {
        long now = bucketStart.get();
        for (int i = 0; i < numToEclipse; i++) {
            now += interval;
            rotateBuckets(now);
        }
    }

    private synchronized void rotateBuckets(long now) {
        long value = currentBucket.getAndSet(0);
        long start = bucketStart.getAndSet(now);
        oldBuckets[next] = value;
        bucketTime[next] = Math.max(0, now - start);
        next = (next + 1) % oldBuckets.length;
    }
}

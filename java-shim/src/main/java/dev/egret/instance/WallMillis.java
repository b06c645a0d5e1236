package dev.egret.instance;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Wall-clock milliseconds derived from a monotonic reading the caller already took, so that
 * a tuple's execute reads one clock, not two: Storm's sample start times on a tuple are
 * wall-clock milliseconds, its execute latency is measured on the monotonic clock.
 *
 * <p>The wall clock is read again once {@link #REBASE_NANOS} have passed since the last
 * reading, so a step of the wall clock (NTP, an operator) shows within that time. One
 * thread's (the executor's); not thread-safe.
 */
final class WallMillis {
    static final long REBASE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier wallClock;
    private long baseNanos;
    private long baseMillis;
    private boolean based;

    WallMillis(LongSupplier wallClock) {
        this.wallClock = wallClock;
    }

    WallMillis() {
        this(System::currentTimeMillis);
    }

    /** The wall-clock time, ms, at {@code nowNanos} ({@link System#nanoTime}'s reading). */
    long at(long nowNanos) {
        long since = nowNanos - baseNanos;
        if (!based || since < 0 || since >= REBASE_NANOS) {
            baseMillis = wallClock.getAsLong();
            baseNanos = nowNanos;
            based = true;
            return baseMillis;
        }
        return baseMillis + since / 1_000_000L;
    }
}

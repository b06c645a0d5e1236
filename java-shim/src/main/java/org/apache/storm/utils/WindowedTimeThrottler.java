package org.apache.storm.utils;

/**
 * Allows at most {@code maxAmt} events per window of {@code windowMillis} (windows aligned on
 * the epoch, on {@link Time}'s clock, so simulated time applies).
 */
public class WindowedTimeThrottler {
    private final long windowMillis;
    private final int maxAmt;
    private long windowStart;
    private int windowEvents;

    public WindowedTimeThrottler(Number windowMillis, Number maxAmt) {
        if (windowMillis == null || windowMillis.longValue() <= 0) {
            throw new IllegalArgumentException("windowMillis must be positive, was " + windowMillis);
        }
        if (maxAmt == null) {
            throw new IllegalArgumentException("maxAmt must be set");
        }
        this.windowMillis = windowMillis.longValue();
        this.maxAmt = maxAmt.intValue();
        this.windowStart = Time.currentTimeMillis() / this.windowMillis;
    }

    /** Whether the current window has had its {@code maxAmt} events already. */
    public boolean isThrottled() {
        updateWindow();
        return windowEvents >= maxAmt;
    }

    /** Counts one event in the current window. */
    public void markEvent() {
        updateWindow();
        windowEvents++;
    }

    private void updateWindow() {
        long window = Time.currentTimeMillis() / windowMillis;
        if (window > windowStart) {
            windowStart = window;
            windowEvents = 0;
        }
    }
}

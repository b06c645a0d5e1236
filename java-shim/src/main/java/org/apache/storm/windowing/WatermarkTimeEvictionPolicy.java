package org.apache.storm.windowing;

/**
 * {@link TimeEvictionPolicy} on event time: the reference time is the window end set by
 * the watermark trigger; events later than it are kept, and a scan stops at the first
 * event more than {@code lag} ms after it (the queue is in arrival order, at most that
 * far out of timestamp order).
 */
public class WatermarkTimeEvictionPolicy<T> extends TimeEvictionPolicy<T> {
    private final int lag;

    public WatermarkTimeEvictionPolicy(int windowLength) {
        this(windowLength, Integer.MAX_VALUE);
    }

    public WatermarkTimeEvictionPolicy(int windowLength, int lag) {
        super(windowLength);
        this.lag = lag;
    }

    @Override
    public Action evict(Event<T> event) {
        EvictionContext ctx = evictionContext;
        long reference = ctx == null || ctx.getReferenceTime() == null ? 0L : ctx.getReferenceTime();
        long age = reference - event.getTimestamp();
        if (age < -lag) {
            return Action.STOP;
        }
        if (age < 0) {
            return Action.KEEP;
        }
        return super.evict(event);
    }

    @Override
    public String toString() {
        return "WatermarkTimeEvictionPolicy{lag=" + lag + "} " + super.toString();
    }
}

package org.apache.storm.windowing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the events of the last {@code windowLength} ms before the reference time (the
 * context's, or now without one); events after the reference time are kept for later.
 *
 * <p>With a sliding interval in the context, the window stretches by how late the trigger
 * fired compared with the interval (so a late timer does not drop events no window saw);
 * the first window holds every event.
 */
public class TimeEvictionPolicy<T> implements EvictionPolicy<T, EvictionContext> {
    private static final Logger LOG = LoggerFactory.getLogger(TimeEvictionPolicy.class);

    private final int windowLength;
    protected volatile EvictionContext evictionContext;
    private long delta;

    public TimeEvictionPolicy(int windowLength) {
        this.windowLength = windowLength;
    }

    @Override
    public Action evict(Event<T> event) {
        EvictionContext ctx = evictionContext;
        long reference = ctx == null ? System.currentTimeMillis() : ctx.getReferenceTime();
        long age = reference - event.getTimestamp();
        if (age >= windowLength + delta) {
            return Action.EXPIRE;
        }
        if (age < 0) {
            return Action.KEEP;
        }
        return Action.PROCESS;
    }

    @Override
    public void track(Event<T> event) {
    }

    @Override
    public EvictionContext getContext() {
        return evictionContext;
    }

    @Override
    public void setContext(EvictionContext context) {
        EvictionContext previous = evictionContext;
        evictionContext = context;
        if (context.getSlidingInterval() == null) {
            return;
        }
        if (previous == null) {
            delta = Integer.MAX_VALUE;
            return;
        }
        delta = context.getReferenceTime() - previous.getReferenceTime() - context.getSlidingInterval();
        if (Math.abs(delta) > 100) {
            LOG.warn("Window evaluated {} ms off its sliding interval (previous reference time {}, this one {}):"
                    + " clock drift or a long computation in the window", delta, previous.getReferenceTime(),
                    context.getReferenceTime());
        }
    }

    @Override
    public void reset() {
    }

    @Override
    public EvictionContext getState() {
        return evictionContext;
    }

    @Override
    public void restoreState(EvictionContext state) {
        this.evictionContext = state;
    }

    @Override
    public String toString() {
        return "TimeEvictionPolicy{windowLength=" + windowLength + ", evictionContext=" + evictionContext + "}";
    }
}

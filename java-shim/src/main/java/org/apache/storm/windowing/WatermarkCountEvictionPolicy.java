package org.apache.storm.windowing;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.streams.Pair;

/**
 * Keeps the last {@code threshold} events up to the reference time on event time: the
 * trigger's context says the window's end and the sliding count (or how many events lie up
 * to the end); an evaluation expires the oldest while more than {@code threshold} are counted,
 * takes the next ones up to the count, and keeps the rest for later windows.
 * Before the first watermark (no context) nothing is evicted.
 */
public class WatermarkCountEvictionPolicy<T> implements EvictionPolicy<T, Pair<Long, Long>> {
    protected final int threshold;
    protected final AtomicLong currentCount;
    private EvictionContext context;
    private volatile long processed;

    public WatermarkCountEvictionPolicy(int count) {
        this.threshold = count;
        this.currentCount = new AtomicLong();
    }

    @Override
    public Action evict(Event<T> event) {
        EvictionContext ctx = context;
        if (ctx == null) {
            // Compaction may scan before the first watermark: hold everything until then.
            return Action.STOP;
        }
        if (event.getTimestamp() > ctx.getReferenceTime() || processed >= currentCount.get()) {
            return Action.KEEP;
        }
        Action action = expireOverThreshold();
        if (action == Action.PROCESS) {
            processed++;
        }
        return action;
    }

    private Action expireOverThreshold() {
        for (long n = currentCount.get(); n > threshold; n = currentCount.get()) {
            if (currentCount.compareAndSet(n, n - 1)) {
                return Action.EXPIRE;
            }
        }
        return Action.PROCESS;
    }

    @Override
    public void track(Event<T> event) {
    }

    @Override
    public EvictionContext getContext() {
        return context;
    }

    @Override
    public void setContext(EvictionContext context) {
        this.context = context;
        // Without a count, the window is the previous one's events plus a slide.
        currentCount.set(context.getCurrentCount() != null ? context.getCurrentCount()
                : processed + (context.getSlidingCount() == null ? 0L : context.getSlidingCount()));
        processed = 0;
    }

    @Override
    public void reset() {
        processed = 0;
    }

    @Override
    public Pair<Long, Long> getState() {
        return Pair.of(currentCount.get(), processed);
    }

    @Override
    public void restoreState(Pair<Long, Long> state) {
        currentCount.set(state.getFirst());
        processed = state.getSecond();
    }

    @Override
    public String toString() {
        return "WatermarkCountEvictionPolicy{threshold=" + threshold + ", currentCount=" + currentCount
                + ", processed=" + processed + "}";
    }
}

package org.apache.storm.windowing;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the last {@code threshold} events: every event counts as it is tracked, and an
 * evaluation expires the oldest while more than {@code threshold} are counted.
 */
public class CountEvictionPolicy<T> implements EvictionPolicy<T, Long> {
    protected final int threshold;
    protected final AtomicLong currentCount;
    private EvictionContext context;

    public CountEvictionPolicy(int count) {
        this.threshold = count;
        this.currentCount = new AtomicLong();
    }

    @Override
    public Action evict(Event<T> event) {
        // Uncount one event at a time while over the threshold; the caller expires it.
        for (long n = currentCount.get(); n > threshold; n = currentCount.get()) {
            if (currentCount.compareAndSet(n, n - 1)) {
                return Action.EXPIRE;
            }
        }
        return Action.PROCESS;
    }

    @Override
    public void track(Event<T> event) {
        if (!event.isWatermark()) {
            currentCount.incrementAndGet();
        }
    }

    @Override
    public EvictionContext getContext() {
        return context;
    }

    @Override
    public void setContext(EvictionContext context) {
        this.context = context;
    }

    @Override
    public String toString() {
        return "CountEvictionPolicy{threshold=" + threshold + ", currentCount=" + currentCount + "}";
    }

    @Override
    public void reset() {
    }

    @Override
    public Long getState() {
        return currentCount.get();
    }

    @Override
    public void restoreState(Long state) {
        currentCount.set(state);
    }
}

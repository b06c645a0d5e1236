package org.apache.storm.windowing;

import java.util.List;

/**
 * Triggers on event time every {@code count} events: each watermark evaluates one window per
 * {@code count} events that arrived with timestamps after the previous window's end and up to
 * the watermark, ending at the newest timestamp among them.
 */
public class WatermarkCountTriggerPolicy<T> implements TriggerPolicy<T, Long> {
    private final int count;
    private final TriggerHandler handler;
    private final EvictionPolicy<T, ?> evictionPolicy;
    private final WindowManager<T> windowManager;
    private volatile long lastProcessedTs;
    private boolean started;

    public WatermarkCountTriggerPolicy(int count, TriggerHandler handler, EvictionPolicy<T, ?> evictionPolicy,
            WindowManager<T> windowManager) {
        this.count = count;
        this.handler = handler;
        this.evictionPolicy = evictionPolicy;
        this.windowManager = windowManager;
        this.started = false;
    }

    @Override
    public void track(Event<T> event) {
        if (started && event.isWatermark()) {
            List<Long> ends = windowManager.getSlidingCountTimestamps(lastProcessedTs, event.getTimestamp(), count);
            for (long end : ends) {
                evictionPolicy.setContext(new DefaultEvictionContext(end, null, (long) count));
                handler.onTrigger();
                lastProcessedTs = end;
            }
        }
    }

    @Override
    public void reset() {
    }

    @Override
    public void start() {
        started = true;
    }

    @Override
    public void shutdown() {
    }

    @Override
    public Long getState() {
        return lastProcessedTs;
    }

    @Override
    public void restoreState(Long state) {
        lastProcessedTs = state;
    }

    @Override
    public String toString() {
        return "WatermarkCountTriggerPolicy{count=" + count + ", lastProcessedTs=" + lastProcessedTs
                + ", started=" + started + "}";
    }
}

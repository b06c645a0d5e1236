package org.apache.storm.windowing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers on event time: each watermark evaluates the windows ending at multiples of the
 * sliding interval up to it. A window that holds no event is skipped to the next aligned
 * end after the earliest event still to come, so long gaps cost no empty evaluations.
 */
public class WatermarkTimeTriggerPolicy<T> implements TriggerPolicy<T, Long> {
    private static final Logger LOG = LoggerFactory.getLogger(WatermarkTimeTriggerPolicy.class);

    private final long slidingIntervalMs;
    private final TriggerHandler handler;
    private final EvictionPolicy<T, ?> evictionPolicy;
    private final WindowManager<T> windowManager;
    private volatile long nextWindowEndTs;
    private boolean started;

    public WatermarkTimeTriggerPolicy(long slidingIntervalMs, TriggerHandler handler,
            EvictionPolicy<T, ?> evictionPolicy, WindowManager<T> windowManager) {
        this.slidingIntervalMs = slidingIntervalMs;
        this.handler = handler;
        this.evictionPolicy = evictionPolicy;
        this.windowManager = windowManager;
        this.started = false;
    }

    @Override
    public void track(Event<T> event) {
        if (started && event.isWatermark()) {
            onWatermark(event.getTimestamp());
        }
    }

    private void onWatermark(long watermark) {
        long end = nextWindowEndTs;
        LOG.debug("Watermark {}: evaluating windows from the one ending at {}", watermark, end);
        while (end <= watermark) {
            evictionPolicy.setContext(new DefaultEvictionContext(end, (long) windowManager.getEventCount(end)));
            if (handler.onTrigger()) {
                end += slidingIntervalMs;
                continue;
            }
            long next = nextAlignedEnd(end, watermark);
            if (next == Long.MAX_VALUE) {
                break;
            }
            end = next;
        }
        nextWindowEndTs = end;
    }

    /** The first window end at a multiple of the interval holding an event in (start, end]. */
    private long nextAlignedEnd(long start, long end) {
        long ts = windowManager.getEarliestEventTs(start, end);
        if (ts == Long.MAX_VALUE || ts % slidingIntervalMs == 0) {
            return ts;
        }
        return ts + (slidingIntervalMs - ts % slidingIntervalMs);
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
        return nextWindowEndTs;
    }

    @Override
    public void restoreState(Long state) {
        nextWindowEndTs = state;
    }

    @Override
    public String toString() {
        return "WatermarkTimeTriggerPolicy{slidingIntervalMs=" + slidingIntervalMs + ", nextWindowEndTs="
                + nextWindowEndTs + ", started=" + started + "}";
    }
}

package org.apache.storm.windowing;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.generated.GlobalStreamId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds watermarks to a window manager every {@code intervalMs} (on a thread of its own, once
 * started; {@link #run} computes one now). The watermark is the smallest, over the input
 * streams, of the newest timestamp seen on each, less the lag; none is added until every
 * input stream has had a tuple, nor one that is not newer than the last.
 *
 * <p>A throwable while adding a watermark ends the timer; the next {@link #track} rethrows
 * it as a {@code FailedException}.
 */
public class WaterMarkEventGenerator<T> implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(WaterMarkEventGenerator.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final WindowManager<T> windowManager;
    private final int eventTsLag;
    private final Set<GlobalStreamId> inputStreams;
    private final Map<GlobalStreamId, Long> streamToTs;
    private final ScheduledExecutorService executorService;
    private final int interval;
    private ScheduledFuture<?> executorFuture;
    private volatile long lastWaterMarkTs;

    /**
     * @param intervalMs how often a watermark is computed
     * @param eventTsLagMs how far behind the newest timestamps the watermark stays
     * @param inputStreams the streams whose timestamps count
     */
    public WaterMarkEventGenerator(WindowManager<T> windowManager, int intervalMs, int eventTsLagMs,
            Set<GlobalStreamId> inputStreams) {
        this.windowManager = windowManager;
        this.streamToTs = new ConcurrentHashMap<>();
        this.executorService = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "watermark-event-generator-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.interval = intervalMs;
        this.eventTsLag = eventTsLagMs;
        this.inputStreams = inputStreams;
    }

    /**
     * Notes an event's timestamp on its stream.
     *
     * @return false if the event is late: older than the last watermark
     */
    public boolean track(GlobalStreamId stream, long ts) {
        streamToTs.merge(stream, ts, Math::max);
        TimeTriggerPolicy.rethrowFailure(executorFuture);
        return ts >= lastWaterMarkTs;
    }

    @Override
    public void run() {
        try {
            long watermark = computeWaterMarkTs();
            if (watermark > lastWaterMarkTs) {
                windowManager.add(new WaterMarkEvent<>(watermark));
                lastWaterMarkTs = watermark;
            }
        } catch (Throwable t) {
            LOG.error("Adding a watermark failed; the generator stops and the next tuple rethrows it", t);
            throw t;
        }
    }

    private long computeWaterMarkTs() {
        long ts = 0;
        if (streamToTs.size() >= inputStreams.size()) {
            ts = Long.MAX_VALUE;
            for (long v : streamToTs.values()) {
                ts = Math.min(ts, v);
            }
        }
        return ts - eventTsLag;
    }

    public void start() {
        executorFuture = executorService.scheduleAtFixedRate(this, interval, interval, TimeUnit.MILLISECONDS);
    }

    public void shutdown() {
        LOG.debug("Shutting down the watermark generator");
        TimeTriggerPolicy.shutdownAndWait(executorService);
    }
}

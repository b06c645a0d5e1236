package org.apache.storm.topology;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.windowing.EventWindowManager;
import org.apache.storm.windowing.TimestampExtractor;
import org.apache.storm.windowing.TupleWindowImpl;
import org.apache.storm.windowing.WindowLifecycleListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IWindowedBolt} as an ordinary bolt: tuples go into an
 * {@link EventWindowManager}; windows activate on the executor thread (count slides) or on
 * this executor's timer thread (duration slides on processing time, watermarks on event
 * time, every {@code topology.bolts.watermark.event.interval.ms}).
 *
 * <p>Acking as in Storm: a tuple is acked when it expires from the window (or at once when
 * it is late); emits without anchors from {@code execute(TupleWindow)} are anchored to the
 * window's tuples. Late tuples (event time, behind the watermark) are emitted on the late
 * tuple stream, if one is configured, in the field {@code late_tuple}.
 *
 * <p>Invariant: the window manager and the wrapped bolt are only used under {@code lock},
 * so the bolt never runs on two threads at once. A throwable from the bolt on the timer
 * thread is reported and rethrown from the next {@link #execute}, failing the task.
 */
public class WindowedBoltExecutor implements IRichBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WindowedBoltExecutor.class);
    public static final String LATE_TUPLE_FIELD = "late_tuple";
    private static final int DEFAULT_WATERMARK_INTERVAL_MS = 1000;

    private final IWindowedBolt bolt;

    protected transient Object lock;
    private transient EventWindowManager<Tuple> windowManager;
    private transient WindowCollector windowCollector;
    private transient OutputCollector collector;
    private transient TimestampExtractor timestampExtractor;
    private transient String lateTupleStream;
    private transient long lagMs;
    private transient Set<GlobalStreamId> inputStreams;
    private transient Map<GlobalStreamId, Long> maxTsPerStream;
    private transient ScheduledExecutorService timer;
    private transient volatile Throwable timerFailure;

    public WindowedBoltExecutor(IWindowedBolt bolt) {
        this.bolt = bolt;
    }

    static Integer intOrNull(Map<String, Object> conf, String key) {
        Object v = conf.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Number) {
            return ((Number) v).intValue();
        }
        return Integer.valueOf(v.toString().trim());
    }

    protected int getTopologyTimeoutMillis(Map<String, Object> topoConf) {
        Object enabled = topoConf.get(Config.TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS);
        if (enabled != null && !Boolean.parseBoolean(enabled.toString())) {
            return Integer.MAX_VALUE;
        }
        Integer secs = intOrNull(topoConf, Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS);
        return secs == null ? Integer.MAX_VALUE : secs * 1000;
    }

    /** Storm's checks: a duration window must fit in the message timeout, a count window in max spout pending. */
    protected void validate(Map<String, Object> topoConf, Integer lengthCount, Integer lengthMs,
            Integer slideCount, Integer slideMs) {
        if (lengthCount == null && lengthMs == null) {
            throw new IllegalArgumentException("Window length is not specified");
        }
        int timeout = getTopologyTimeoutMillis(topoConf);
        long duration = (lengthMs == null ? 0L : lengthMs) + (slideMs == null ? 0L : slideMs);
        if (duration > timeout) {
            throw new IllegalArgumentException("Window duration (length + sliding interval) value " + duration
                    + " is more than " + Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS + " value " + timeout);
        }
        Integer maxPending = intOrNull(topoConf, Config.TOPOLOGY_MAX_SPOUT_PENDING);
        long count = (lengthCount == null ? 0L : lengthCount) + (slideCount == null ? 0L : slideCount);
        if (maxPending != null && count > maxPending) {
            throw new IllegalArgumentException("Window count (length + sliding interval) value " + count
                    + " is more than " + Config.TOPOLOGY_MAX_SPOUT_PENDING + " value " + maxPending);
        }
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.lock = new Object();
        this.collector = collector;
        Integer lengthCount = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WINDOW_LENGTH_COUNT);
        Integer lengthMs = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WINDOW_LENGTH_DURATION_MS);
        Integer slideCount = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT);
        Integer slideMs = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_SLIDING_INTERVAL_DURATION_MS);
        if (lengthCount != null && lengthMs != null) {
            throw new IllegalArgumentException("Window length is set both as a count and as a duration");
        }
        validate(topoConf, lengthCount, lengthMs, slideCount, slideMs);
        if (slideCount == null && slideMs == null) {
            // Storm: without a sliding interval the window slides with every tuple.
            slideCount = 1;
        }
        timestampExtractor = bolt.getTimestampExtractor();
        boolean eventTime = timestampExtractor != null;
        Object late = topoConf.get(Config.TOPOLOGY_BOLTS_LATE_TUPLE_STREAM);
        lateTupleStream = late == null ? null : late.toString();
        if (lateTupleStream != null) {
            if (!eventTime) {
                throw new IllegalArgumentException("Late tuple stream can be defined only when specifying a"
                        + " timestamp field");
            }
            if (!context.getThisStreams().contains(lateTupleStream)) {
                throw new IllegalArgumentException("Stream for late tuples must be defined with the builder"
                        + " method withLateTupleStream");
            }
        }
        Integer lag = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_TUPLE_TIMESTAMP_MAX_LAG_MS);
        lagMs = lag == null ? 0 : lag;
        Integer wmInterval = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WATERMARK_EVENT_INTERVAL_MS);
        int watermarkIntervalMs = wmInterval == null ? DEFAULT_WATERMARK_INTERVAL_MS : wmInterval;
        inputStreams = new HashSet<>();
        for (GlobalStreamId id : context.getThisSources().keySet()) {
            if (!CheckpointSpout.CHECKPOINT_STREAM_ID.equals(id.get_streamId())) {
                inputStreams.add(id);
            }
        }
        maxTsPerStream = new HashMap<>();
        windowManager = new EventWindowManager<>(lengthCount, lengthMs == null ? null : lengthMs.longValue(),
                slideCount, slideMs == null ? null : slideMs.longValue(), eventTime, newWindowLifecycleListener());
        windowCollector = new WindowCollector(collector);
        bolt.prepare(topoConf, context, windowCollector);
        String name = "egret-window-" + context.getThisComponentId() + "-" + context.getThisTaskId();
        if (eventTime) {
            startTimer(name, watermarkIntervalMs, this::emitWatermark);
        } else if (slideMs != null) {
            startTimer(name, slideMs, () -> windowManager.onTimer(System.currentTimeMillis()));
        }
        LOG.info("Windowed bolt {}:{}: length {}, sliding {}, {}", context.getThisComponentId(),
                context.getThisTaskId(), lengthCount != null ? lengthCount + " tuples" : lengthMs + " ms",
                slideCount != null ? slideCount + " tuples" : slideMs + " ms",
                eventTime ? "event time (lag " + lagMs + " ms, watermark every " + watermarkIntervalMs + " ms)"
                        : "processing time");
    }

    private void startTimer(String name, long periodMs, Runnable action) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            if (timerFailure != null) {
                return;
            }
            try {
                synchronized (lock) {
                    action.run();
                }
            } catch (Throwable t) {
                LOG.error("Windowed bolt failed on its timer thread; the task fails with its next tuple", t);
                timerFailure = t;
                collector.reportError(t);
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** The watermark: the smallest of the newest timestamps per input stream, less the lag. */
    private void emitWatermark() {
        if (maxTsPerStream.size() < inputStreams.size() || maxTsPerStream.isEmpty()) {
            return;
        }
        long min = Long.MAX_VALUE;
        for (long ts : maxTsPerStream.values()) {
            min = Math.min(min, ts);
        }
        windowManager.onWatermark(min - lagMs);
    }

    /** Runs one watermark computation now (tests drive event time without the timer). */
    void watermarkNow() {
        synchronized (lock) {
            emitWatermark();
        }
    }

    /** Runs one processing-time slide now (tests drive time without the timer). */
    void slideNow(long now) {
        synchronized (lock) {
            windowManager.onTimer(now);
        }
    }

    @Override
    public void execute(Tuple input) {
        Throwable failed = timerFailure;
        if (failed != null) {
            throw new RuntimeException("Windowed bolt failed on its timer thread", failed);
        }
        synchronized (lock) {
            if (timestampExtractor == null) {
                windowManager.add(input, System.currentTimeMillis());
                return;
            }
            long ts = timestampExtractor.extractTimestamp(input);
            maxTsPerStream.merge(input.getSourceGlobalStreamId(), ts, Math::max);
            if (!windowManager.add(input, ts)) {
                if (lateTupleStream != null) {
                    collector.emit(lateTupleStream, input, new Values(input));
                } else {
                    LOG.info("Received a late tuple {} with ts {}. This will not be processed.", input, ts);
                }
                collector.ack(input);
            }
        }
    }

    @Override
    public void cleanup() {
        if (timer != null) {
            timer.shutdownNow();
        }
        bolt.cleanup();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        bolt.declareOutputFields(declarer);
        Map<String, Object> conf = bolt.getComponentConfiguration();
        Object late = conf == null ? null : conf.get(Config.TOPOLOGY_BOLTS_LATE_TUPLE_STREAM);
        if (late != null) {
            declarer.declareStream(late.toString(), new Fields(LATE_TUPLE_FIELD));
        }
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return bolt.getComponentConfiguration();
    }

    /** The bolt this executor runs. */
    IWindowedBolt bolt() {
        return bolt;
    }

    /** Drops the windows' contents (a rollback), returning the tuples dropped. */
    protected List<Tuple> clearWindows() {
        synchronized (lock) {
            return windowManager.clear();
        }
    }

    protected WindowLifecycleListener<Tuple> newWindowLifecycleListener() {
        return new WindowLifecycleListener<Tuple>() {
            @Override
            public void onExpiry(List<Tuple> events) {
                for (Tuple t : events) {
                    collector.ack(t);
                }
            }

            @Override
            public void onActivation(List<Tuple> events, List<Tuple> newEvents, List<Tuple> expired,
                    Long referenceTime) {
                windowCollector.window = events;
                try {
                    boltExecute(events, newEvents, expired, referenceTime);
                } finally {
                    windowCollector.window = null;
                }
            }
        };
    }

    protected void boltExecute(List<Tuple> tuples, List<Tuple> newTuples, List<Tuple> expiredTuples, Long timestamp) {
        Map<String, Object> conf = bolt.getComponentConfiguration();
        Long start = null;
        Object lengthMs = conf == null ? null : conf.get(Config.TOPOLOGY_BOLTS_WINDOW_LENGTH_DURATION_MS);
        if (timestamp != null && lengthMs instanceof Number) {
            start = timestamp - ((Number) lengthMs).longValue();
        }
        bolt.execute(new TupleWindowImpl(tuples, newTuples, expiredTuples, start, timestamp));
    }

    /** Anchors the bolt's unanchored emits to the tuples of the window being executed. */
    private static final class WindowCollector extends OutputCollector {
        volatile List<Tuple> window;

        WindowCollector(IOutputCollector delegate) {
            super(delegate);
        }

        private Collection<Tuple> anchors(Collection<Tuple> given) {
            List<Tuple> w = window;
            return (given == null || given.isEmpty()) && w != null ? w : given;
        }

        @Override
        public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            return super.emit(streamId, anchors(anchors), tuple);
        }

        @Override
        public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            super.emitDirect(taskId, streamId, anchors(anchors), tuple);
        }
    }
}

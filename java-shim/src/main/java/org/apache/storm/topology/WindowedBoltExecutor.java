package org.apache.storm.topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.windowing.CountEvictionPolicy;
import org.apache.storm.windowing.CountTriggerPolicy;
import org.apache.storm.windowing.Event;
import org.apache.storm.windowing.EvictionPolicy;
import org.apache.storm.windowing.StatefulWindowManager;
import org.apache.storm.windowing.TimeEvictionPolicy;
import org.apache.storm.windowing.TimeTriggerPolicy;
import org.apache.storm.windowing.TimestampExtractor;
import org.apache.storm.windowing.TriggerPolicy;
import org.apache.storm.windowing.TupleWindowImpl;
import org.apache.storm.windowing.TupleWindowIterImpl;
import org.apache.storm.windowing.WaterMarkEventGenerator;
import org.apache.storm.windowing.WatermarkCountEvictionPolicy;
import org.apache.storm.windowing.WatermarkCountTriggerPolicy;
import org.apache.storm.windowing.WatermarkTimeEvictionPolicy;
import org.apache.storm.windowing.WatermarkTimeTriggerPolicy;
import org.apache.storm.windowing.WindowLifecycleListener;
import org.apache.storm.windowing.WindowManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IWindowedBolt} as an ordinary bolt, on Storm's windowing classes: tuples
 * go into a {@link WindowManager} whose policies follow the bolt's configuration (count or
 * duration length and slide; processing time, or event time with a
 * {@link WaterMarkEventGenerator} when the bolt has a timestamp extractor). Count slides
 * evaluate on the executor thread; duration slides and watermarks on the policies' timer
 * threads.
 *
 * <p>Acking as in Storm: a tuple is acked when it expires from the window (or at once when
 * it is late); emits without anchors from {@code execute(TupleWindow)} are anchored to the
 * window's tuples. Late tuples (event time, older than the last watermark) are emitted on
 * the late tuple stream, if one is configured, in the field {@code late_tuple}.
 *
 * <p>Invariant (Egret's, stricter than Storm): every call into the window manager, on any
 * thread, holds {@code lock}, so the bolt never runs on two threads at once and checkpoints
 * ({@link StatefulBoltExecutor}) can take the same lock. A throwable from the bolt on a
 * timer thread is reported, ends that timer, and is rethrown from the next {@link #execute},
 * failing the task.
 */
public class WindowedBoltExecutor implements IRichBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WindowedBoltExecutor.class);
    public static final String LATE_TUPLE_FIELD = "late_tuple";
    private static final int DEFAULT_WATERMARK_EVENT_INTERVAL_MS = 1000;
    private static final int DEFAULT_MAX_LAG_MS = 0;

    private final IWindowedBolt bolt;
    // Storm's tests drive event time through this field (package-private there too).
    transient WaterMarkEventGenerator<Tuple> waterMarkEventGenerator;
    protected transient Object lock;
    private transient WindowedOutputCollector windowedOutputCollector;
    private transient OutputCollector collector;
    private transient WindowLifecycleListener<Tuple> listener;
    private transient WindowManager<Tuple> windowManager;
    private transient int maxLagMs;
    private TimestampExtractor timestampExtractor;
    private transient String lateTupleStream;
    private transient TriggerPolicy<Tuple, ?> triggerPolicy;
    private transient EvictionPolicy<Tuple, ?> evictionPolicy;
    private transient Duration windowLengthDuration;

    public WindowedBoltExecutor(IWindowedBolt bolt) {
        this.bolt = bolt;
        this.timestampExtractor = bolt.getTimestampExtractor();
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

    /** The message timeout in ms ({@code Integer.MAX_VALUE} when timeouts are off or not set). */
    protected int getTopologyTimeoutMillis(Map<String, Object> topoConf) {
        Object enabled = topoConf.get(Config.TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS);
        if (enabled != null && !Boolean.parseBoolean(enabled.toString())) {
            return Integer.MAX_VALUE;
        }
        Integer secs = intOrNull(topoConf, Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS);
        return secs == null ? Integer.MAX_VALUE : secs * 1000;
    }

    private int getMaxSpoutPending(Map<String, Object> topoConf) {
        Integer maxPending = intOrNull(topoConf, Config.TOPOLOGY_MAX_SPOUT_PENDING);
        return maxPending == null ? Integer.MAX_VALUE : maxPending;
    }

    private void ensureDurationLessThanTimeout(int duration, int timeout) {
        if (duration > timeout) {
            throw new IllegalArgumentException("Window duration (length + sliding interval) value " + duration
                    + " is more than " + Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS + " value " + timeout);
        }
    }

    private void ensureCountLessThanMaxPending(int count, int maxPending) {
        if (count > maxPending) {
            throw new IllegalArgumentException("Window count (length + sliding interval) value " + count
                    + " is more than " + Config.TOPOLOGY_MAX_SPOUT_PENDING + " value " + maxPending);
        }
    }

    /** Storm's checks: a duration window must fit in the message timeout, a count window in max spout pending. */
    protected void validate(Map<String, Object> topoConf, Count windowLengthCount, Duration windowLengthDuration,
            Count slidingIntervalCount, Duration slidingIntervalDuration) {
        if (windowLengthCount == null && windowLengthDuration == null) {
            throw new IllegalArgumentException("Window length is not specified");
        }
        int timeout = getTopologyTimeoutMillis(topoConf);
        int maxPending = getMaxSpoutPending(topoConf);
        int duration = (windowLengthDuration == null ? 0 : windowLengthDuration.value)
                + (slidingIntervalDuration == null ? 0 : slidingIntervalDuration.value);
        if (windowLengthDuration != null || slidingIntervalDuration != null) {
            ensureDurationLessThanTimeout(duration, timeout);
        }
        int count = (windowLengthCount == null ? 0 : windowLengthCount.value)
                + (slidingIntervalCount == null ? 0 : slidingIntervalCount.value);
        if (windowLengthCount != null || slidingIntervalCount != null) {
            ensureCountLessThanMaxPending(count, maxPending);
        }
    }

    private WindowManager<Tuple> initWindowManager(WindowLifecycleListener<Tuple> lifecycleListener,
            Map<String, Object> topoConf, TopologyContext context, Collection<Event<Tuple>> queue,
            boolean stateful) {
        WindowManager<Tuple> manager = stateful ? new LockedStatefulWindowManager(lifecycleListener, queue)
                : new LockedWindowManager(lifecycleListener, queue);
        Count windowLengthCount = null;
        Count slidingIntervalCount = null;
        Duration slidingIntervalDuration = null;
        windowLengthDuration = null;
        Integer lengthCount = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WINDOW_LENGTH_COUNT);
        Integer lengthMs = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WINDOW_LENGTH_DURATION_MS);
        Integer slideCount = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT);
        Integer slideMs = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_SLIDING_INTERVAL_DURATION_MS);
        if (lengthCount != null) {
            windowLengthCount = new Count(lengthCount);
        } else if (lengthMs != null) {
            windowLengthDuration = new Duration(lengthMs, TimeUnit.MILLISECONDS);
        }
        if (slideCount != null) {
            slidingIntervalCount = new Count(slideCount);
        } else if (slideMs != null) {
            slidingIntervalDuration = new Duration(slideMs, TimeUnit.MILLISECONDS);
        } else {
            // Without a sliding interval the window slides with every tuple.
            slidingIntervalCount = new Count(1);
        }
        waterMarkEventGenerator = null;
        lateTupleStream = null;
        if (isTupleTs()) {
            Object late = topoConf.get(Config.TOPOLOGY_BOLTS_LATE_TUPLE_STREAM);
            lateTupleStream = late == null ? null : late.toString();
            if (lateTupleStream != null && !context.getThisStreams().contains(lateTupleStream)) {
                throw new IllegalArgumentException(
                        "Stream for late tuples must be defined with the builder method withLateTupleStream");
            }
            Integer lag = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_TUPLE_TIMESTAMP_MAX_LAG_MS);
            maxLagMs = lag == null ? DEFAULT_MAX_LAG_MS : lag;
            Integer interval = intOrNull(topoConf, Config.TOPOLOGY_BOLTS_WATERMARK_EVENT_INTERVAL_MS);
            int watermarkInterval = interval == null ? DEFAULT_WATERMARK_EVENT_INTERVAL_MS : interval;
            waterMarkEventGenerator = new WaterMarkEventGenerator<>(manager, watermarkInterval, maxLagMs,
                    getComponentStreams(context));
        } else if (topoConf.containsKey(Config.TOPOLOGY_BOLTS_LATE_TUPLE_STREAM)) {
            throw new IllegalArgumentException(
                    "Late tuple stream can be defined only when specifying a timestamp field");
        }
        validate(topoConf, windowLengthCount, windowLengthDuration, slidingIntervalCount, slidingIntervalDuration);
        evictionPolicy = getEvictionPolicy(windowLengthCount, windowLengthDuration);
        triggerPolicy = getTriggerPolicy(slidingIntervalCount, slidingIntervalDuration, manager, evictionPolicy);
        manager.setEvictionPolicy(evictionPolicy);
        manager.setTriggerPolicy(triggerPolicy);
        return manager;
    }

    /** Restores the window manager's policies (a persistent window's system state). */
    protected void restoreState(Map<String, Optional<?>> state) {
        windowManager.restoreState(state);
    }

    /** The window manager's policies' state. */
    protected Map<String, Optional<?>> getState() {
        return windowManager.getState();
    }

    private Set<GlobalStreamId> getComponentStreams(TopologyContext context) {
        Set<GlobalStreamId> streams = new HashSet<>();
        for (GlobalStreamId id : context.getThisSources().keySet()) {
            if (!CheckpointSpout.CHECKPOINT_STREAM_ID.equals(id.get_streamId())) {
                streams.add(id);
            }
        }
        return streams;
    }

    /** Starts the watermarks and the trigger policy. */
    protected void start() {
        if (waterMarkEventGenerator != null) {
            waterMarkEventGenerator.start();
        }
        triggerPolicy.start();
    }

    private boolean isTupleTs() {
        return timestampExtractor != null;
    }

    private TriggerPolicy<Tuple, ?> getTriggerPolicy(Count slidingIntervalCount, Duration slidingIntervalDuration,
            WindowManager<Tuple> manager, EvictionPolicy<Tuple, ?> evictionPolicy) {
        if (slidingIntervalCount != null) {
            return isTupleTs()
                    ? new WatermarkCountTriggerPolicy<>(slidingIntervalCount.value, manager, evictionPolicy, manager)
                    : new CountTriggerPolicy<>(slidingIntervalCount.value, manager, evictionPolicy);
        }
        return isTupleTs()
                ? new WatermarkTimeTriggerPolicy<>(slidingIntervalDuration.value, manager, evictionPolicy, manager)
                : new TimeTriggerPolicy<>(slidingIntervalDuration.value, manager, evictionPolicy);
    }

    private EvictionPolicy<Tuple, ?> getEvictionPolicy(Count windowLengthCount, Duration windowLengthDuration) {
        if (windowLengthCount != null) {
            return isTupleTs() ? new WatermarkCountEvictionPolicy<>(windowLengthCount.value)
                    : new CountEvictionPolicy<>(windowLengthCount.value);
        }
        return isTupleTs() ? new WatermarkTimeEvictionPolicy<>(windowLengthDuration.value, maxLagMs)
                : new TimeEvictionPolicy<>(windowLengthDuration.value);
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        doPrepare(topoConf, context, collector, new ConcurrentLinkedQueue<>(), false);
    }

    /**
     * Prepares the bolt and the window manager over {@code queue} ({@code stateful}: a
     * persistent window state, evaluated through iterators), then starts the policies.
     */
    protected void doPrepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector,
            Collection<Event<Tuple>> queue, boolean stateful) {
        java.util.Objects.requireNonNull(topoConf);
        java.util.Objects.requireNonNull(context);
        java.util.Objects.requireNonNull(collector);
        java.util.Objects.requireNonNull(queue);
        this.lock = new Object();
        this.collector = collector;
        this.timestampExtractor = bolt.getTimestampExtractor();
        this.windowedOutputCollector = new WindowedOutputCollector(collector);
        bolt.prepare(topoConf, context, windowedOutputCollector);
        this.listener = newWindowLifecycleListener();
        this.windowManager = initWindowManager(listener, topoConf, context, queue, stateful);
        start();
        LOG.info("Windowed bolt {}:{}: {}{}", context.getThisComponentId(), context.getThisTaskId(), windowManager,
                isTupleTs() ? " on event time (lag " + maxLagMs + " ms)" : " on processing time");
    }

    @Override
    public void execute(Tuple input) {
        synchronized (lock) {
            if (isTupleTs()) {
                long ts = timestampExtractor.extractTimestamp(input);
                if (waterMarkEventGenerator.track(input.getSourceGlobalStreamId(), ts)) {
                    windowManager.add(input, ts);
                } else {
                    if (lateTupleStream != null) {
                        windowedOutputCollector.emit(lateTupleStream, input, new Values(input));
                    } else {
                        LOG.info("Received a late tuple {} with ts {}. This will not be processed.", input, ts);
                    }
                    windowedOutputCollector.ack(input);
                }
            } else {
                windowManager.add(input);
            }
        }
    }

    @Override
    public void cleanup() {
        if (waterMarkEventGenerator != null) {
            waterMarkEventGenerator.shutdown();
        }
        if (windowManager != null) {
            windowManager.shutdown();
        }
        bolt.cleanup();
    }

    WindowManager<Tuple> getWindowManager() {
        return windowManager;
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        Object late = getComponentConfiguration().get(Config.TOPOLOGY_BOLTS_LATE_TUPLE_STREAM);
        if (late != null) {
            declarer.declareStream(late.toString(), new Fields(LATE_TUPLE_FIELD));
        }
        bolt.declareOutputFields(declarer);
    }

    /** The bolt's configuration, or an empty one when it has none. */
    @Override
    public Map<String, Object> getComponentConfiguration() {
        Map<String, Object> conf = bolt.getComponentConfiguration();
        return conf == null ? new java.util.HashMap<>() : conf;
    }

    /** The bolt this executor runs. */
    IWindowedBolt bolt() {
        return bolt;
    }

    protected WindowLifecycleListener<Tuple> newWindowLifecycleListener() {
        return new WindowLifecycleListener<Tuple>() {
            @Override
            public void onExpiry(List<Tuple> tuples) {
                for (Tuple t : tuples) {
                    windowedOutputCollector.ack(t);
                }
            }

            @Override
            public void onActivation(List<Tuple> tuples, List<Tuple> newTuples, List<Tuple> expiredTuples,
                    Long timestamp) {
                windowedOutputCollector.setContext(tuples);
                try {
                    boltExecute(tuples, newTuples, expiredTuples, timestamp);
                } finally {
                    windowedOutputCollector.setContext(null);
                }
            }
        };
    }

    protected void boltExecute(List<Tuple> tuples, List<Tuple> newTuples, List<Tuple> expiredTuples, Long timestamp) {
        bolt.execute(new TupleWindowImpl(tuples, newTuples, expiredTuples, getWindowStartTs(timestamp), timestamp));
    }

    protected void boltExecute(Supplier<Iterator<Tuple>> tuples, Supplier<Iterator<Tuple>> newTuples,
            Supplier<Iterator<Tuple>> expiredTuples, Long timestamp) {
        bolt.execute(new TupleWindowIterImpl(tuples, newTuples, expiredTuples, getWindowStartTs(timestamp),
                timestamp));
    }

    /** A duration window's start (exclusive): its end less its length; null for count windows. */
    private Long getWindowStartTs(Long endTs) {
        return endTs != null && windowLengthDuration != null ? endTs - windowLengthDuration.value : null;
    }

    /** Takes {@code lock} around a trigger; a throwable from it is reported as the task's error. */
    private boolean lockedTrigger(Supplier<Boolean> trigger) {
        synchronized (lock) {
            try {
                return trigger.get();
            } catch (RuntimeException | Error e) {
                collector.reportError(e);
                throw e;
            }
        }
    }

    /** {@link WindowManager} whose entry points hold the executor's lock (see the class doc). */
    private final class LockedWindowManager extends WindowManager<Tuple> {
        LockedWindowManager(WindowLifecycleListener<Tuple> listener, Collection<Event<Tuple>> queue) {
            super(listener, queue);
        }

        @Override
        public void add(Event<Tuple> event) {
            synchronized (lock) {
                super.add(event);
            }
        }

        @Override
        public boolean onTrigger() {
            return lockedTrigger(super::onTrigger);
        }
    }

    /** {@link StatefulWindowManager} whose entry points hold the executor's lock. */
    private final class LockedStatefulWindowManager extends StatefulWindowManager<Tuple> {
        LockedStatefulWindowManager(WindowLifecycleListener<Tuple> listener, Collection<Event<Tuple>> queue) {
            super(listener, queue);
        }

        @Override
        public void add(Event<Tuple> event) {
            synchronized (lock) {
                super.add(event);
            }
        }

        @Override
        public boolean onTrigger() {
            return lockedTrigger(super::onTrigger);
        }
    }

    /** Anchors the bolt's emits without anchors to the tuples of the window being executed. */
    private static final class WindowedOutputCollector extends OutputCollector {
        private volatile List<Tuple> inputTuples;

        WindowedOutputCollector(IOutputCollector delegate) {
            super(delegate);
        }

        void setContext(List<Tuple> inputTuples) {
            this.inputTuples = inputTuples;
        }

        @Override
        public List<Integer> emit(String streamId, List<Object> tuple) {
            return emit(streamId, inputTuples, tuple);
        }

        @Override
        public void emitDirect(int taskId, String streamId, List<Object> tuple) {
            emitDirect(taskId, streamId, inputTuples, tuple);
        }
    }
}

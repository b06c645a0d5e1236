package dev.egret.instance;

import dev.egret.metrics.TaskMetrics;
import dev.egret.metrics.TaskStats;
import dev.egret.proto.Bridge;
import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.Isolation;
import dev.egret.proto.SchedPolicy;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.TopologySettings;
import dev.egret.proto.TopologyState;
import dev.egret.proto.TreeOutcome;
import dev.egret.serialization.JavaSerialization;
import dev.egret.serialization.TupleValuesCodec;
import dev.egret.wire.FrameBuffer;
import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Constants;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.state.StateFactory;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.task.WorkerUserContext;
import org.apache.storm.tuple.TupleImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Storm executor: the tasks of one instance, all driven by a single thread.
 *
 * <p>Bolts: each incoming tuple is executed by the task named by its {@code dest_task}.
 * Spouts: while the topology is active, {@code nextTuple} is called on each task in turn;
 * a round in which no task emitted is followed by a ~1 ms wait (Storm's spout wait
 * strategy), spent waiting for inbound messages so state changes are seen at once, and
 * cut short when an outgoing batch waits for the idle flush's gap to end: the next round's
 * tuples then join it before it is sealed ({@link OutboundSink#sealIdleFromExecutor(boolean)}; a
 * bolt's executor likewise seals its idle batch at the gap's end). Tick tuples are driven by
 * this thread; the {@link OutboundSink}'s writer thread keeps the flush timer and writes the
 * batches this thread cannot hand over without waiting, so a bolt busy with a long inbound
 * batch still sends its acks every {@code egret.batch.flush.ms}.
 *
 * <p>Acking: spout tasks keep their pending trees in their {@link SpoutCollector}; the
 * stream manager's tree events complete or fail them here (spout {@code ack}/{@code fail}).
 * A task with {@code topology.max.spout.pending} trees pending is not asked for more; the
 * loop then sleeps until an inbound message or a deadline (flush, safety check) wakes it. A
 * tree with no outcome after 3 x {@code topology.message.timeout.secs} is failed here, as a
 * safety net behind the ledger's own timeout.
 *
 * <p>Backpressure: while the stream manager has throttled this spout instance ({@code
 * Throttle}), {@code nextTuple} is not called (Storm's contract); tree events (ack/fail),
 * activate/deactivate, ticks and the flush of the outgoing batch go on. A new connection
 * starts unthrottled (the stream manager says so again if it still is). The stream manager
 * also stops reading a throttled spout's socket: only the sink's writer thread blocks on it,
 * and {@code nextTuple} is not called either while the sink's outgoing queue is over half its
 * bound ({@link OutboundSink#writable()}), so the executor thread keeps running callbacks.
 *
 * <p>Metrics ({@link ExecutorMetrics}): every task counts Storm's built-in statistics exactly
 * (emits, transfers, acks, fails, executes and their latencies) and sends them to the stream
 * manager every {@code egret.stats.interval.secs}; when a metrics consumer subscribes, each
 * task emits its built-in, v1 and (if enabled) v2 metrics on {@code __metrics} once per
 * bucket, from this thread.
 *
 * <p>Invariants: user code of this executor's tasks (open/prepare, nextTuple, execute,
 * ack, fail, activate/deactivate) only runs on the executor thread; inbound messages wait in a
 * queue bounded in bytes ({@code egret.instance.inbound.bytes}) and messages, counted until
 * handled ({@link InboundQueue}), so a slow executor blocks the reader and the socket pushes
 * back.
 */
final class InstanceExecutor {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    /** Marks the end of the inbound stream (the connection closed or failed). */
    static final Object END = new Object();
    /** Wakes the executor (a user thread buffered tuples that must be flushed on time). */
    private static final Object WAKE = new Object();

    private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long SPOUT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The inbound queue's bound in messages (tree events and state changes are small). */
    static final int INBOUND_MESSAGES = 1024;
    /** Messages handled in a row before ticks, metrics and spouts get their turn. */
    private static final int MAX_DRAIN = 64;
    private static final long SAFETY_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The spout fails a tree itself when the ledger has said nothing for this many timeouts. */
    static final int SAFETY_TIMEOUT_FACTOR = 3;

    /** A task failed to start or threw from user code: the instance must exit. */
    static final class TaskFailure extends Exception {
        final int taskId;

        TaskFailure(int taskId, String message, Throwable cause) {
            super(message, cause);
            this.taskId = taskId;
        }
    }

    private static final class Task {
        final int id;
        final TopologyContext context;
        final Map<String, Object> conf;
        ISpout spout;
        IBolt bolt;
        SpoutCollector spoutCollector;
        BoltCollector boltCollector;
        TaskEmitter emitter;
        TaskMetrics metrics;
        /** Effectively once, a data spout task: its checkpoint part and the collector its markers go out on. */
        EffectivelyOnceSpout eo;
        BoltCollector markerCollector;
        /** By source task: the ring of values passed by reference to this task, once seen. */
        LocalValues.Ring[] ringsBySource = new LocalValues.Ring[0];
        /** Effectively once, buffered alignment: a bolt task with several input tasks on $checkpoint. */
        MarkerAlignment<TupleImpl> alignment;
        int tickSecs;
        long nextTickAt;

        Task(int id, TopologyContext context, Map<String, Object> conf) {
            this.id = id;
            this.context = context;
            this.conf = conf;
        }
    }

    private final TopologyView view;
    private final InstanceAssignment assignment;
    private final String component;
    private final boolean isSpout;
    private final OutboundSink sink;
    private final ErrorSink errors;
    private final InboundQueue inbound;
    /** With the JNI bridge: the executor's own reading of its frames (null: a reader thread queues them). */
    private volatile DirectInbound direct;
    private final ThreadLocal<TupleValuesCodec> codecs;
    private final TupleValuesCodec executorCodec;
    /** The inbound frame being executed, read in place (executor thread only). */
    private final InboundBatch inboundBatch = new InboundBatch();
    /** The inbound tree events being handled, read in place (executor thread only). */
    private final InboundTreeEvents treeEvents = new InboundTreeEvents();
    private final List<Task> tasks = new ArrayList<>();
    private final Map<Integer, Task> tasksById = new HashMap<>();
    private final boolean debug;
    private boolean stormActive;
    private boolean spoutsActive;
    private boolean warnedTuplesToSpout;
    /** Set by the stream manager's backpressure; spouts only. */
    private boolean throttled;
    private long throttledSince;
    private ExecutorService sharedExecutor;
    /** The resolved settings of the assignment. */
    private final TopologySettings settings;
    /** Storm's acking: on unless topology.acker.executors is 0 (resolved by Rust). */
    private final boolean acking;
    /** topology.reliability.mode is EFFECTIVELY_ONCE (resolved by Rust). */
    private final boolean effectivelyOnce;
    /** egret.checkpoint.alignment.bytes (resolved by Rust): 0, the data spouts pause at each PREPARE. */
    private final long alignmentBytes;
    private final int messageTimeoutSecs;
    private final boolean timeoutsEnabled;
    /** topology.max.spout.pending per spout task; 0 for no limit. */
    private final int maxSpoutPending;
    /** 0 when the safety net is off (acking off, or message timeouts disabled). */
    private final long safetyTimeoutNanos;
    private long nextSafetyCheckAt;
    /** This JVM's worker hooks (Egret's worker is one instance JVM). */
    private final WorkerHooks workerHooks = new WorkerHooks();
    /** Storm's event logging of this component (debug options), shared by its tasks' emitters. */
    private final EventSampler eventSampler;
    /** Metrics buckets and stats reports; null until the tasks are started. */
    private ExecutorMetrics metrics;
    /**
     * This worker's v2 metrics registry (every task's registerCounter/Meter/... under Storm's full
     * names) and the reporters of topology.metrics.reporters; started before the tasks.
     */
    private final StormMetricRegistry workerRegistry = new StormMetricRegistry();

    InstanceExecutor(TopologyView view, InstanceAssignment assignment, OutboundSink.FrameWriter writer) {
        this.view = view;
        this.assignment = assignment;
        this.component = assignment.getInstance().getComponent();
        if (view.component(component) == null) {
            throw new IllegalArgumentException("assigned component '" + component + "' is not in the topology");
        }
        this.isSpout = view.isSpout(component);
        Map<String, Object> topoConf = view.topologyConf();
        // Rust resolves, Java obeys: every value below comes resolved in the assignment.
        this.settings = settingsOf(assignment);
        this.sink = new OutboundSink(writer, positiveInt(settings.getBatchSize(), "batch_size"),
                TimeUnit.MILLISECONDS.toNanos(Integer.toUnsignedLong(settings.getBatchFlushMs())),
                positiveLong(settings.getInstanceOutboundBytes(), "instance_outbound_bytes"),
                settings.getBatchFlushIdle());
        // A spout's nextTuple may block (a consumer's poll): its writer seals the batch if
        // the executor is not back after the gap. A bolt comes back unless new input keeps
        // it busy; the flush timer bounds that, and running out of work wakes nobody.
        sink.sealIdleFromExecutor(isSpout);
        this.inbound = new InboundQueue(
                positiveLong(settings.getInstanceInboundBytes(), "instance_inbound_bytes"), INBOUND_MESSAGES);
        this.errors = new ErrorSink(sink);
        // Kryo is built from the topology config only: class ids must agree in every JVM.
        this.codecs = ThreadLocal.withInitial(() -> new TupleValuesCodec(topoConf));
        this.executorCodec = codecs.get();
        Map<String, Object> componentConf = view.componentConf(component);
        this.debug = isTrue(componentConf.get("topology.debug"));
        this.acking = settings.getAcking();
        this.effectivelyOnce = settings.getEffectivelyOnce();
        StateChannel.effectivelyOnce(effectivelyOnce);
        StateChannel.fullEvery(settings.getCheckpointFullEvery());
        this.alignmentBytes = settings.getAlignmentBufferBytes();
        this.maxSpoutPending = Math.max(0, intConf(componentConf, "topology.max.spout.pending", 0));
        this.messageTimeoutSecs = positiveInt(settings.getMessageTimeoutSecs(), "message_timeout_secs");
        long timeoutSecs = messageTimeoutSecs;
        boolean timeouts = settings.getMessageTimeouts();
        this.timeoutsEnabled = timeouts;
        this.safetyTimeoutNanos = acking && timeouts
                ? TimeUnit.SECONDS.toNanos(timeoutSecs * SAFETY_TIMEOUT_FACTOR) : 0L;
        this.stormActive = assignment.getState() != TopologyState.TOPOLOGY_STATE_DEACTIVATED
                && assignment.getState() != TopologyState.TOPOLOGY_STATE_KILLED;
        this.eventSampler = new EventSampler(assignment.getEventSamplingPct());
    }

    /** The bounded queue the reader thread feeds; {@link #END} ends the loop. */
    InboundQueue inbound() {
        return inbound;
    }

    /** The executor reads its own frames through {@code d} (the JNI bridge); null: from its queue only. */
    void readDirectly(DirectInbound d) {
        this.direct = d;
    }

    OutboundSink sink() {
        return sink;
    }

    ErrorSink errors() {
        return errors;
    }

    String component() {
        return component;
    }

    /** Deserializes one component object per task, builds the contexts, opens/prepares every task. */
    void start() throws TaskFailure {
        // A spout that stopped calling nextTuple because the outgoing queue was full resumes at once.
        sink.onWritable(() -> {
            inbound.offer(WAKE);
            DirectInbound d = direct;
            if (d != null) {
                d.wake();
            }
        });
        List<Integer> taskIds = new ArrayList<>(assignment.getInstance().getTaskIdsList());
        Collections.sort(taskIds);
        String workDir = assignment.getWorkDir().isEmpty() ? System.getProperty("user.dir") : assignment.getWorkDir();
        File pidDir = new File(workDir, "pids");
        if (!pidDir.mkdirs() && !pidDir.isDirectory()) {
            LOG.warn("Could not create the pid directory {}", pidDir);
        }
        Map<String, Object> executorData = new HashMap<>();
        Map<String, Object> defaultResources = new HashMap<>();
        sharedExecutor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, component + "-shared");
            t.setDaemon(true);
            return t;
        });
        defaultResources.put(WorkerTopologyContext.SHARED_EXECUTOR, sharedExecutor);
        // Shared by the worker hooks (setResource) and every task (getResource), as in a Storm worker.
        Map<String, Object> userResources = new java.util.concurrent.ConcurrentHashMap<>();
        try {
            workerHooks.start(view.topologyConf(), new WorkerUserContext(view, taskIds, workDir, pidDir.getPath(),
                    defaultResources, userResources));
        } catch (Exception | LinkageError e) {
            throw new TaskFailure(taskIds.isEmpty() ? -1 : taskIds.get(0),
                    "A worker hook of " + component + " failed to start", e);
        }
        if (workerHooks.startedCount() > 0) {
            Runtime.getRuntime().addShutdownHook(new Thread(workerHooks::shutdown, component + "-worker-hooks"));
        }
        startReporters();
        byte[] serialized = view.component(component).getSerializedJava().toByteArray();
        Map<String, Object> conf = view.componentConf(component);
        List<String> autoHooks = autoTaskHooks(view.topologyConf());
        // Storm's worker passes a tuple to its own executors by reference: so does one JVM of
        // the JNI bridge, unless topology.testing.always.try.serialize asks otherwise.
        boolean byReference = LocalValues.enabledInThisJvm()
                && settings.getBridge() == dev.egret.proto.Bridge.BRIDGE_JNI && !settings.getAlwaysTrySerialize();
        Map<Integer, Integer> taskContainer = assignment.getTaskContainerMap();
        int container = assignment.getContainerIndex();
        if (byReference) {
            LocalValues.host(taskIds);
            LOG.info("Tuples between {}:{} and the other executors of this JVM pass their values by reference",
                    component, taskIds);
        }
        for (int taskId : taskIds) {
            if (!component.equals(view.componentOf(taskId))) {
                throw new TaskFailure(taskId, "Task " + taskId + " is not a task of component " + component, null);
            }
            TaskMetrics taskMetrics = new TaskMetrics(isSpout);
            TopologyContext ctx = new TopologyContext(view, taskId, taskIds, workDir, pidDir.getPath(),
                    defaultResources, userResources, executorData, taskMetrics);
            taskMetrics.attach(workerRegistry, ctx);
            Task t = new Task(taskId, ctx, new HashMap<>(conf));
            t.metrics = taskMetrics;
            Object obj;
            try {
                obj = JavaSerialization.deserialize(serialized);
            } catch (Exception | LinkageError e) {
                throw new TaskFailure(taskId, "Could not deserialize " + component + " for task " + taskId, e);
            }
            GroupingRouter router;
            try {
                router = new GroupingRouter(view, component, ctx, assignment.getTaskContainerMap(),
                        assignment.getContainerIndex());
            } catch (RuntimeException | LinkageError e) {
                throw new TaskFailure(taskId, "Could not set up the groupings of " + component + ":" + taskId, e);
            }
            t.emitter = new TaskEmitter(taskId, component, router, sink, codecs, debug, taskMetrics.stats());
            t.emitter.hooks(ctx);
            if (byReference) {
                t.emitter.passByReference(dest -> Groupings.inContainer(taskContainer, dest, container));
            }
            if (!view.subscribers(component, TaskEmitter.EVENTLOG_STREAM).isEmpty()) {
                t.emitter.eventSampler(eventSampler);
            }
            // Storm adds topology.auto.task.hooks when it creates the task, before open/prepare.
            for (String hookClass : autoHooks) {
                try {
                    ctx.addTaskHook(newTaskHook(hookClass));
                } catch (Exception | LinkageError e) {
                    throw new TaskFailure(taskId, "Could not add the task hook " + hookClass + " (from "
                            + "topology.auto.task.hooks) to " + component + ":" + taskId, e);
                }
            }
            if (isSpout) {
                if (!(obj instanceof ISpout)) {
                    throw new TaskFailure(taskId, "Component " + component + " is a spout but its object is a "
                            + obj.getClass().getName(), null);
                }
                t.spout = (ISpout) obj;
                t.spoutCollector = new SpoutCollector(t.emitter, errors, sink, component, acking);
            } else {
                if (!(obj instanceof IBolt)) {
                    throw new TaskFailure(taskId, "Component " + component + " is a bolt but its object is a "
                            + obj.getClass().getName(), null);
                }
                t.bolt = (IBolt) obj;
                t.tickSecs = intConf(t.conf, "topology.tick.tuple.freq.secs", 0);
            }
            tasks.add(t);
            tasksById.put(taskId, t);
        }
        for (Task t : tasks) {
            try {
                if (isSpout) {
                    if (effectivelyOnce && acking
                            && !CheckpointSpout.CHECKPOINT_COMPONENT_ID.equals(component)) {
                        startEffectivelyOnce(t);
                    }
                    LOG.info("Opening spout {}:{}", component, t.id);
                    t.spout.open(t.conf, t.context, new SpoutOutputCollector(t.spoutCollector));
                    LOG.info("Opened spout {}:{}", component, t.id);
                } else {
                    LOG.info("Preparing bolt {}:{}", component, t.id);
                    t.boltCollector = new BoltCollector(t.emitter, errors, sink, component, t.metrics.stats());
                    t.boltCollector.hooks(t.context);
                    t.bolt.prepare(t.conf, t.context, new OutputCollector(t.boltCollector));
                    if (effectivelyOnce && acking && alignmentBytes > 0) {
                        int inputs = StateChannel.checkpointInputTasks(t.context);
                        if (inputs > 1) {
                            t.alignment = new MarkerAlignment<>(component + ":" + t.id, t.id, inputs, alignmentBytes);
                        }
                    }
                    LOG.info("Prepared bolt {}:{}", component, t.id);
                }
            } catch (Exception | LinkageError | AssertionError e) {
                throw new TaskFailure(t.id, (isSpout ? "Spout " : "Bolt ") + component + ":" + t.id
                        + (isSpout ? " failed in open" : " failed in prepare"), e);
            }
        }
        long now = System.nanoTime();
        metrics = new ExecutorMetrics(assignment.getInstance().getInstanceId(), component, isSpout, sink,
                !view.subscribers(component, Constants.METRICS_STREAM_ID).isEmpty(), view.topologyConf(),
                tasks.isEmpty() ? 0 : tasks.get(0).context.getThisWorkerPort());
        for (Task t : tasks) {
            metrics.add(new ExecutorMetrics.TaskEntry(t.id, t.metrics, t.emitter));
        }
        metrics.start(now);
        for (Task t : tasks) {
            if (t.tickSecs > 0) {
                t.nextTickAt = now + TimeUnit.SECONDS.toNanos(t.tickSecs);
                LOG.info("Tick tuples every {} s for {}:{}", t.tickSecs, component, t.id);
            }
        }
        nextSafetyCheckAt = now + SAFETY_CHECK_NANOS;
        if (isSpout) {
            LOG.info("Spout {}:{} acking {}, max spout pending per task {}", component, taskIdList(),
                    acking ? "on" : "off (at most once)", maxSpoutPending > 0 ? maxSpoutPending : "unlimited");
        }
        sink.sendReady();
    }

    /**
     * Runs until the inbound stream ends. Returns normally on {@link #END}; user code that
     * throws ends the loop with a {@link TaskFailure}.
     */
    void run() throws TaskFailure, InterruptedException {
        while (true) {
            long now = System.nanoTime();
            fireTicks(now);
            metrics.tick(now);
            if (isSpout) {
                applySpoutActivation();
                checkSafetyTimeouts(now);
                boolean emitted = false;
                boolean called = false;
                if (spoutsActive && !throttled && sink.writable()) {
                    for (Task t : tasks) {
                        if (maxSpoutPending > 0 && t.spoutCollector.pendingCount() >= maxSpoutPending) {
                            continue;
                        }
                        if (t.eo != null && !t.eo.mayEmit()) {
                            continue;
                        }
                        called = true;
                        long before = t.emitter.emitted;
                        try {
                            t.spout.nextTuple();
                            drainAcks(t);
                        } catch (Exception | LinkageError | AssertionError e) {
                            throw new TaskFailure(t.id, "Spout " + component + ":" + t.id + " threw from nextTuple", e);
                        }
                        emitted |= t.emitter.emitted != before;
                    }
                }
                // Throttled, inactive or the outgoing queue is full: nothing to do until a tree
                // event (inbound), a wake-up from the writer, or a deadline.
                long wait = emitted ? 0 : (called ? SPOUT_WAIT_NANOS : waitUntilNextDeadline());
                if (!handleInbound(wait)) {
                    return;
                }
            } else if (!handleInbound(waitUntilNextDeadline())) {
                return;
            }
        }
    }

    private long waitUntilNextDeadline() {
        long deadline = Math.min(nextTickDeadline(), metrics.nextDeadline());
        if (isSpout && safetyTimeoutNanos > 0) {
            deadline = Math.min(deadline, nextSafetyCheckAt);
        }
        long now = System.nanoTime();
        return Math.max(0, Math.min(IDLE_WAIT_NANOS, deadline - now));
    }

    private long nextTickDeadline() {
        long d = Long.MAX_VALUE;
        for (Task t : tasks) {
            if (t.tickSecs > 0 && t.nextTickAt < d) {
                d = t.nextTickAt;
            }
        }
        return d;
    }

    /** Processes the inbound messages available within {@code waitNanos}; false when the stream ended. */
    private boolean handleInbound(long waitNanos) throws TaskFailure, InterruptedException {
        InboundQueue.Entry e = nextEntry(0);
        if (e == null && waitNanos > 0) {
            // Out of work: what this executor buffered goes now if the link is idle
            // (egret.batch.flush.idle), instead of waiting for the flush timer.
            if (!sink.executorIdle()) {
                // A spout's batch waits for the gap: come back when it ends, call nextTuple
                // and seal (a bolt's sink has no such deadline: its writer seals).
                long sealIn = sink.idleSealDeadline() - System.nanoTime();
                if (sealIn > 0 && sealIn < waitNanos) {
                    waitNanos = sealIn;
                }
            }
            e = nextEntry(waitNanos);
        }
        // Bounded drain so that ticks, metrics and spouts still get their turn under load.
        for (int i = 0; e != null && i < MAX_DRAIN; i++) {
            if (e.message == END) {
                return false;
            }
            try {
                handle(e.message);
            } finally {
                // Its bytes counted until now: a batch being executed is still memory.
                inbound.release(e);
            }
            // Statistics are due on time even when every batch is slow to execute (a
            // bolt that sleeps per tuple): otherwise the drain delays them by minutes.
            metrics.tick(System.nanoTime());
            e = i + 1 < MAX_DRAIN ? nextEntry(0) : null;
        }
        return true;
    }

    /** The next input within {@code waitNanos} (0: no wait): from the queue, or read by the executor itself. */
    private InboundQueue.Entry nextEntry(long waitNanos) throws InterruptedException {
        DirectInbound d = direct;
        if (d != null) {
            return d.next(waitNanos);
        }
        return waitNanos > 0 ? inbound.poll(waitNanos, TimeUnit.NANOSECONDS) : inbound.poll();
    }

    private void handle(Object o) throws TaskFailure {
        if (o instanceof FrameBuffer) {
            FrameBuffer frame = (FrameBuffer) o;
            try {
                if (InboundTreeEvents.carriesTreeEvents(frame.array(), frame.length())) {
                    handleTreeEvents(frame.array(), frame.length());
                } else {
                    executeFrame(frame.array(), frame.length());
                }
            } finally {
                // Nothing refers to the frame's bytes after it was handled: values were
                // copied out by Kryo, the batch forgot the array.
                frame.release();
            }
            return;
        }
        if (!(o instanceof StreamManagerToInstance)) {
            return;
        }
        // Tuples and tree events never come parsed: the reader queues their frames as bytes.
        StreamManagerToInstance m = (StreamManagerToInstance) o;
        switch (m.getMessageCase()) {
            case STATE:
                setState(m.getState().getState());
                break;
            case THROTTLE:
                setThrottled(m.getThrottle().getThrottled());
                break;
            case EVENT_LOGGING:
                setEventSampling(m.getEventLogging().getSamplingPct());
                break;
            case ASSIGNMENT:
                LOG.warn("Ignoring a second assignment for {}: the instance keeps its first plan", component);
                break;
            default:
                break;
        }
    }

    /** Backpressure from the stream manager: stop or resume calling nextTuple. */
    void setThrottled(boolean on) {
        if (!isSpout || on == throttled) {
            return;
        }
        throttled = on;
        long now = System.nanoTime();
        if (on) {
            throttledSince = now;
            LOG.info("Backpressure: spout {}:{} stops calling nextTuple until the stream manager lifts it",
                    component, taskIdList());
        } else {
            LOG.info("Backpressure lifted: spout {}:{} resumes nextTuple after {} ms", component, taskIdList(),
                    TimeUnit.NANOSECONDS.toMillis(now - throttledSince));
        }
    }

    boolean throttled() {
        return throttled;
    }

    /** Storm's debug options changed: the percentage of emitted tuples sent to the event logger. */
    void setEventSampling(double pct) {
        if (pct == eventSampler.pct()) {
            return;
        }
        eventSampler.set(pct);
        if (pct > 0) {
            LOG.info("Event logging of {} is on: {}% of emitted tuples go to the event logger", component, pct);
        } else {
            LOG.info("Event logging of {} is off", component);
        }
    }

    void setState(TopologyState s) {
        stormActive = s == TopologyState.TOPOLOGY_STATE_RUNNING;
        LOG.info("Topology state of {} is now {}", component, s);
    }

    /** The outcomes of this instance's spout trees in a frame the reader left as bytes. */
    private void handleTreeEvents(byte[] frame, int length) throws TaskFailure {
        try {
            treeEvents.read(frame, length);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            LOG.error("Dropping a malformed frame of tree events ({} bytes) for {}: {}", length, component,
                    e.getMessage());
            return;
        }
        for (int i = 0; i < treeEvents.size(); i++) {
            onTreeEvent(treeEvents.spoutTask(i), treeEvents.key(i), treeEvents.outcome(i));
        }
    }

    private void onTreeEvent(int spoutTask, long key, int outcomeNumber) throws TaskFailure {
        Task t = taskOf(spoutTask);
        if (t == null || t.spoutCollector == null) {
            LOG.debug("Ignoring a tree event for task {}, not a spout task of {}", spoutTask, component);
            return;
        }
        TreeOutcome outcome = TreeOutcome.forNumber(outcomeNumber);
        if (outcome == null) {
            LOG.debug("Ignoring a tree event with outcome {}", outcomeNumber);
            return;
        }
        switch (outcome) {
            case TREE_OUTCOME_COMPLETED: {
                SpoutCollector.Pending p = t.spoutCollector.remove(key);
                if (p != null && t.eo != null) {
                    t.eo.completed(p);
                    drainEffectivelyOnce(t);
                } else if (p != null) {
                    spoutAck(t, p);
                }
                break;
            }
            case TREE_OUTCOME_FAILED: {
                SpoutCollector.Pending p = t.spoutCollector.remove(key);
                if (p != null && t.eo != null) {
                    t.eo.failed(p);
                    drainEffectivelyOnce(t);
                } else if (p != null) {
                    spoutFail(t, p, "failed or timed out in the ledger");
                }
                break;
            }
            case TREE_OUTCOME_TIMEOUT_RESET:
                t.spoutCollector.resetTimer(key, System.nanoTime());
                break;
            default:
                LOG.debug("Ignoring a tree event with outcome {}", outcome);
                break;
        }
    }

    private void spoutAck(Task t, SpoutCollector.Pending p) throws TaskFailure {
        if (debug) {
            LOG.info("SPOUT Acking message {} {}", p.key, p.messageId);
        }
        long latencyNanos = System.nanoTime() - p.emittedAt;
        t.metrics.stats().spoutAcked(p.stream, latencyNanos);
        try {
            t.spout.ack(p.messageId);
            if (!t.context.getHooks().isEmpty()) {
                new SpoutAckInfo(p.messageId, t.id, TimeUnit.NANOSECONDS.toMillis(latencyNanos)).applyOn(t.context);
            }
        } catch (Exception | LinkageError | AssertionError ex) {
            throw new TaskFailure(t.id, "Spout " + component + ":" + t.id + " threw from ack", ex);
        }
    }

    private void spoutFail(Task t, SpoutCollector.Pending p, String reason) throws TaskFailure {
        if (debug) {
            LOG.info("SPOUT Failing {} {} REASON: {}", p.key, p.messageId, reason);
        }
        t.metrics.stats().spoutFailed(p.stream);
        try {
            t.spout.fail(p.messageId);
            if (!t.context.getHooks().isEmpty()) {
                new SpoutFailInfo(p.messageId, t.id, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.emittedAt))
                        .applyOn(t.context);
            }
        } catch (Exception | LinkageError | AssertionError ex) {
            throw new TaskFailure(t.id, "Spout " + component + ":" + t.id + " threw from fail", ex);
        }
    }

    /** Safety net behind the ledger: fails trees that have had no outcome for 3 x the message timeout. */
    private void checkSafetyTimeouts(long now) throws TaskFailure {
        if (safetyTimeoutNanos == 0 || now - nextSafetyCheckAt < 0) {
            return;
        }
        nextSafetyCheckAt = now + SAFETY_CHECK_NANOS;
        for (Task t : tasks) {
            List<SpoutCollector.Pending> expired = t.spoutCollector.removeOlderThan(now - safetyTimeoutNanos);
            if (!expired.isEmpty()) {
                LOG.warn("Spout {}:{} fails {} tree(s) that had no outcome from the stream manager after {} s",
                        component, t.id, expired.size(), TimeUnit.NANOSECONDS.toSeconds(safetyTimeoutNanos));
                for (SpoutCollector.Pending p : expired) {
                    if (t.eo != null) {
                        t.eo.failed(p);
                    } else {
                        spoutFail(t, p, "no outcome from the stream manager (safety timeout)");
                    }
                }
                drainEffectivelyOnce(t);
            }
        }
    }

    /**
     * Called on the executor thread once the instance is connected to a (restarted) stream
     * manager again: its ledger is new, so every tree pending before is failed (replayed).
     */
    void onReconnected(TopologyState state) throws TaskFailure {
        StateChannel.reconnected();
        for (Task t : tasks) {
            if (t.eo != null) {
                t.eo.reconnected();
            }
        }
        setState(state);
        // A new stream manager connection starts unthrottled.
        setThrottled(false);
        if (!isSpout) {
            return;
        }
        for (Task t : tasks) {
            List<SpoutCollector.Pending> lost = t.spoutCollector.removeAll();
            if (!lost.isEmpty()) {
                LOG.info("Spout {}:{} fails {} tree(s) pending before the reconnect", component, t.id, lost.size());
            }
            for (SpoutCollector.Pending p : lost) {
                if (t.eo != null) {
                    t.eo.failed(p);
                } else {
                    spoutFail(t, p, "pending across a stream manager reconnect");
                }
            }
            drainEffectivelyOnce(t);
        }
    }

    private void applySpoutActivation() throws TaskFailure {
        if (stormActive == spoutsActive) {
            return;
        }
        spoutsActive = stormActive;
        LOG.info("{} spout {}:{}", spoutsActive ? "Activating" : "Deactivating", component, taskIdList());
        for (Task t : tasks) {
            try {
                if (spoutsActive) {
                    t.spout.activate();
                } else {
                    t.spout.deactivate();
                }
            } catch (Exception | LinkageError | AssertionError e) {
                throw new TaskFailure(t.id, "Spout " + component + ":" + t.id + " threw from "
                        + (spoutsActive ? "activate" : "deactivate"), e);
            }
        }
    }

    private void drainAcks(Task t) {
        for (SpoutCollector.Untracked u = t.spoutCollector.pollAck(); u != null; u = t.spoutCollector.pollAck()) {
            if (debug) {
                LOG.info("SPOUT Acking message {} {}", "{}", u.messageId);
            }
            // Acking off: the tree completes at its emit (Storm counts it with latency 0).
            t.metrics.stats().spoutAcked(u.stream, 0L);
            t.spout.ack(u.messageId);
            if (!t.context.getHooks().isEmpty()) {
                new SpoutAckInfo(u.messageId, t.id, 0L).applyOn(t.context);
            }
        }
    }

    /**
     * Runs the tuples of a frame the reader left as bytes ({@link InboundBatch#carriesTuples}).
     * A malformed frame is dropped whole, with an error naming the problem; its tracked tuples
     * time out in their ledgers and are replayed, as tuples lost with a connection are.
     */
    private void executeFrame(byte[] frame, int length) throws TaskFailure {
        try {
            inboundBatch.read(frame, length);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            LOG.error("Dropping a malformed frame of {} bytes from the stream manager for {}: {}", length,
                    component, e.getMessage());
            return;
        }
        try {
            execute(inboundBatch);
        } finally {
            inboundBatch.forget();
        }
    }

    private void execute(InboundBatch batch) throws TaskFailure {
        if (isSpout && effectivelyOnce) {
            executeMarkers(batch);
            return;
        }
        if (isSpout) {
            if (!warnedTuplesToSpout) {
                LOG.warn("Spout {} received tuples; dropping them", component);
                warnedTuplesToSpout = true;
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            int destTask = batch.destTask(i);
            Task t = taskOf(destTask);
            if (t == null) {
                LOG.warn("Dropping a tuple for task {}, which this instance ({}) does not host",
                        destTask, component);
                continue;
            }
            int srcTask = batch.srcTask(i);
            String source = sourceOf(srcTask);
            String stream = batch.stream(i);
            TupleImpl tuple;
            try {
                List<Object> values = valuesOf(t, batch, i);
                tuple = new TupleImpl(t.context, values, source, srcTask, stream,
                        TreeMessageId.of(batch.roots(i), batch.edgeId(i)));
            } catch (RuntimeException e) {
                LOG.error("Dropping an undecodable tuple from {}:{} on stream {} for task {}: {}",
                        source, srcTask, stream, t.id, e.getMessage());
                continue;
            }
            if (t.alignment == null) {
                executeOne(t, tuple);
            } else {
                executeAligned(t, tuple, stream, srcTask, batch.encodedSize(i));
            }
        }
    }

    /**
     * A tuple's values: read from its bytes, or taken where the emitting executor of this JVM
     * left them ({@link LocalValues}); an error naming the number when they are not there.
     */
    private List<Object> valuesOf(Task t, InboundBatch batch, int i) {
        long ref = batch.localRef(i);
        if (ref == 0) {
            return executorCodec.deserialize(batch.frame(), batch.valuesOffset(i), batch.valuesLength(i));
        }
        int src = batch.srcTask(i);
        LocalValues.Ring ring = LocalValues.at(t.ringsBySource, src);
        if (ring == null && src >= 0) {
            ring = LocalValues.existingRing(src, t.id);
            if (ring != null) {
                t.ringsBySource = LocalValues.with(t.ringsBySource, src, ring);
            }
        }
        List<Object> values = ring == null ? null : ring.take(ref);
        if (values == null) {
            throw new IllegalStateException("its values were passed by reference (number " + ref
                    + ") and are not held in this JVM");
        }
        return values;
    }

    /** The sample start times of the tuples executed, from their execute's start reading. */
    private final WallMillis wallMillis = new WallMillis();

    // The executor thread's last lookups on the inbound path: consecutive tuples mostly go to
    // the same task, from the same source task, on the same stream.
    private Task lastTask;
    private int lastSourceTask = Integer.MIN_VALUE;
    private String lastSource;

    /** The hosted task {@code id}, or null. */
    private Task taskOf(int id) {
        Task t = lastTask;
        if (t == null || t.id != id) {
            t = tasksById.get(id);
            lastTask = t;
        }
        return t;
    }

    /** The component of task {@code sourceTask}. */
    private String sourceOf(int sourceTask) {
        if (sourceTask != lastSourceTask || lastSource == null) {
            lastSource = view.componentOf(sourceTask);
            lastSourceTask = sourceTask;
        }
        return lastSource;
    }

    /** Effectively once, buffered alignment ({@link MarkerAlignment}): holds, releases or runs. */
    private void executeAligned(Task t, TupleImpl tuple, String stream, int srcTask, int encodedSize)
            throws TaskFailure {
        MarkerAlignment<TupleImpl> a = t.alignment;
        if (!CheckpointSpout.CHECKPOINT_STREAM_ID.equals(stream)) {
            if (!a.hold(tuple, srcTask, () -> encodedSize)) {
                for (TupleImpl r : a.takeReleased()) {
                    executeOne(t, r);
                }
                executeOne(t, tuple);
            }
            return;
        }
        Action action;
        long txid;
        try {
            action = (Action) tuple.getValueByField(CheckpointSpout.CHECKPOINT_FIELD_ACTION);
            txid = tuple.getLongByField(CheckpointSpout.CHECKPOINT_FIELD_TXID);
        } catch (RuntimeException e) {
            executeOne(t, tuple);
            return;
        }
        for (TupleImpl f : a.beforeMarker(action, txid, srcTask)) {
            t.boltCollector.fail(f);
        }
        for (TupleImpl r : a.takeReleased()) {
            executeOne(t, r);
        }
        executeOne(t, tuple);
        for (TupleImpl r : a.afterMarker(action)) {
            executeOne(t, r);
        }
    }

    /** Effectively once, the instance's spouts take no data: the checkpoint actions are handled and forwarded. */
    @SuppressWarnings("unchecked")
    private void startEffectivelyOnce(Task t) throws TaskFailure {
        String namespace = component + "-" + t.id;
        // Each checkpoint adds one window of message ids and drops the oldest: stored as
        // deltas, a PREPARE writes one window instead of all of them (time and memory).
        StateChannel.fullEvery(namespace, EffectivelyOnceSpout.KEPT_WINDOWS);
        Object state = StateFactory.getState(namespace, t.conf, t.context);
        if (!(state instanceof KeyValueState)) {
            throw new TaskFailure(t.id, "Effectively once needs a key-value state for spout " + component + ":"
                    + t.id + " (topology.state.provider), got " + state.getClass().getName(), null);
        }
        t.eo = new EffectivelyOnceSpout(component + ":" + t.id, (KeyValueState<Long, ArrayList<Object>>) state,
                alignmentBytes == 0);
        t.spoutCollector.effectivelyOnce(t.eo);
        t.markerCollector = new BoltCollector(t.emitter, errors, sink, component);
    }

    private void executeMarkers(InboundBatch batch) throws TaskFailure {
        for (int i = 0; i < batch.size(); i++) {
            int destTask = batch.destTask(i);
            String stream = batch.stream(i);
            Task t = taskOf(destTask);
            if (t == null || t.eo == null || !CheckpointSpout.CHECKPOINT_STREAM_ID.equals(stream)) {
                LOG.warn("Spout {} dropping a tuple on stream {} for task {}", component, stream, destTask);
                continue;
            }
            int srcTask = batch.srcTask(i);
            String source = view.componentOf(srcTask);
            TupleImpl tuple;
            Action action;
            long txid;
            try {
                List<Object> values = valuesOf(t, batch, i);
                tuple = new TupleImpl(t.context, values, source, srcTask, stream,
                        TreeMessageId.of(batch.roots(i), batch.edgeId(i)));
                action = (Action) tuple.getValueByField(CheckpointSpout.CHECKPOINT_FIELD_ACTION);
                txid = tuple.getLongByField(CheckpointSpout.CHECKPOINT_FIELD_TXID);
            } catch (RuntimeException e) {
                LOG.error("Dropping an undecodable checkpoint tuple from {}:{} for task {}: {}",
                        source, srcTask, t.id, e.getMessage());
                continue;
            }
            EffectivelyOnceSpout.Outcome outcome;
            try {
                outcome = t.eo.onAction(action, txid);
            } catch (RuntimeException e) {
                LOG.error("Spout {}:{} could not handle checkpoint action {} {}: {}", component, t.id, action, txid,
                        e.toString());
                outcome = EffectivelyOnceSpout.Outcome.FAIL;
            }
            if (outcome == EffectivelyOnceSpout.Outcome.FORWARD && action == Action.ROLLBACK) {
                t.eo.rolledBack(t.spoutCollector.removeAll());
            }
            if (outcome == EffectivelyOnceSpout.Outcome.FORWARD) {
                List<Object> marker = new ArrayList<>(2);
                marker.add(txid);
                marker.add(action);
                t.markerCollector.emit(CheckpointSpout.CHECKPOINT_STREAM_ID, List.of(tuple), marker);
                t.markerCollector.ack(tuple);
            } else {
                t.markerCollector.fail(tuple);
            }
            drainEffectivelyOnce(t);
        }
    }

    /** Acks and fails the effectively-once part released. */
    private void drainEffectivelyOnce(Task t) throws TaskFailure {
        if (t.eo == null) {
            return;
        }
        for (SpoutCollector.Pending p = t.eo.toAck.poll(); p != null; p = t.eo.toAck.poll()) {
            spoutAck(t, p);
        }
        for (SpoutCollector.Pending p = t.eo.toFail.poll(); p != null; p = t.eo.toFail.poll()) {
            spoutFail(t, p, "rolled back to the last complete checkpoint");
        }
    }

    private void executeOne(Task t, TupleImpl tuple) throws TaskFailure {
        if (debug) {
            LOG.info("Processing received message FOR {} TUPLE: {}", t.id, tuple);
        }
        long start = System.nanoTime();
        long startMs = wallMillis.at(start);
        // Every tuple is "sampled" (exact statistics): the start times Storm sets on sampled tuples.
        tuple.setProcessSampleStartTime(startMs);
        tuple.setExecuteSampleStartTime(startMs);
        t.boltCollector.executing(tuple, start);
        try {
            t.bolt.execute(tuple);
        } catch (Exception | LinkageError | AssertionError e) {
            throw new TaskFailure(t.id, "Bolt " + component + ":" + t.id + " threw from execute", e);
        } finally {
            t.boltCollector.executing(null, 0L);
        }
        long executeNanos = System.nanoTime() - start;
        if (!t.context.getHooks().isEmpty()) {
            try {
                new BoltExecuteInfo(tuple, t.id, TimeUnit.NANOSECONDS.toMillis(executeNanos)).applyOn(t.context);
            } catch (Exception | LinkageError | AssertionError e) {
                throw new TaskFailure(t.id, "A task hook of " + component + ":" + t.id + " threw from boltExecute", e);
            }
        }
        TaskStats stats = t.metrics.stats();
        stats.boltExecuted(stats.inputKey(tuple.getSourceComponent(), tuple.getSourceStreamId()), executeNanos);
    }

    private void fireTicks(long now) throws TaskFailure {
        for (Task t : tasks) {
            if (t.tickSecs > 0 && now - t.nextTickAt >= 0) {
                // Schedule from the due time, not from now, so ticks do not drift; skip missed ones.
                long period = TimeUnit.SECONDS.toNanos(t.tickSecs);
                t.nextTickAt += period;
                if (now - t.nextTickAt >= 0) {
                    t.nextTickAt = now + period;
                }
                List<Object> values = new ArrayList<>(1);
                values.add(t.tickSecs);
                executeOne(t, new TupleImpl(t.context, values, TopologyView.SYSTEM_COMPONENT,
                        TopologyView.SYSTEM_TASK, TopologyView.TICK_STREAM));
            }
        }
    }

    /**
     * Releases the executor's own resources. User close/cleanup is not called, as Storm on
     * kill; the task hooks' cleanup and the worker hooks' shutdown are, as in Storm's
     * executor and worker shutdown.
     */
    void shutdown() {
        for (Task t : tasks) {
            for (ITaskHook hook : t.context.getHooks()) {
                try {
                    hook.cleanup();
                } catch (RuntimeException | LinkageError e) {
                    LOG.warn("Task hook {} of {}:{} threw from cleanup", hook.getClass().getName(), component, t.id, e);
                }
            }
        }
        workerHooks.shutdown();
        workerRegistry.stop();
        sink.close();
        if (sharedExecutor != null) {
            sharedExecutor.shutdownNow();
        }
    }

    /**
     * Starts the worker registry with the topology's id and the reporters of
     * {@code topology.metrics.reporters} (a reporter that cannot start is logged, never fatal:
     * see {@link StormMetricRegistry#start}). Egret's worker port is 0, as in the contexts.
     */
    private void startReporters() {
        Map<String, Object> conf = new HashMap<>(view.topologyConf());
        conf.putIfAbsent(org.apache.storm.Config.STORM_ID, view.stormId());
        workerRegistry.start(conf, 0);
    }

    /** Storm's topology.auto.task.hooks: class names, each instantiated once per task. */
    static List<String> autoTaskHooks(Map<String, Object> topoConf) {
        Object v = topoConf.get("topology.auto.task.hooks");
        List<String> out = new ArrayList<>();
        if (v instanceof List) {
            for (Object o : (List<?>) v) {
                if (o != null) {
                    out.add(o.toString());
                }
            }
        } else if (v instanceof String && !((String) v).isEmpty()) {
            out.add((String) v);
        }
        return out;
    }

    /** A new hook of {@code className} through its public no-argument constructor, from the user's jar. */
    static ITaskHook newTaskHook(String className) throws ReflectiveOperationException {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        Class<?> c = Class.forName(className, true, cl != null ? cl : InstanceExecutor.class.getClassLoader());
        if (!ITaskHook.class.isAssignableFrom(c)) {
            throw new ClassCastException(className + " does not implement org.apache.storm.hooks.ITaskHook");
        }
        return (ITaskHook) c.getConstructor().newInstance();
    }

    private String taskIdList() {
        List<Integer> ids = new ArrayList<>();
        for (Task t : tasks) {
            ids.add(t.id);
        }
        return ids.toString();
    }

    static int intConf(Map<String, Object> conf, String key, int dflt) {
        Object v = conf.get(key);
        if (v instanceof Number) {
            return ((Number) v).intValue();
        }
        if (v instanceof String) {
            try {
                return Integer.parseInt(((String) v).trim());
            } catch (NumberFormatException e) {
                LOG.warn("Ignoring config {}={}: not an integer", key, v);
            }
        }
        return dflt;
    }

    /**
     * The settings of an assignment.
     *
     * @throws IllegalArgumentException when the assignment carries none (an older stream manager)
     */
    static TopologySettings settingsOf(InstanceAssignment assignment) {
        if (!assignment.getTopology().hasSettings()) {
            throw new IllegalArgumentException("the assignment's topology carries no resolved settings"
                    + " (Topology.settings); the stream manager and this shim are of different versions");
        }
        return assignment.getTopology().getSettings();
    }

    private static int positiveInt(int v, String field) {
        if (v <= 0) {
            throw new IllegalArgumentException("the assignment's settings have " + field + " = "
                    + Integer.toUnsignedString(v) + "; it must be a positive int");
        }
        return v;
    }

    private static long positiveLong(long v, String field) {
        if (v <= 0) {
            throw new IllegalArgumentException("the assignment's settings have " + field + " = "
                    + Long.toUnsignedString(v) + "; it must be a positive long");
        }
        return v;
    }

    /**
     * The settings this executor's objects use, in the line every process logs
     * ({@code Resolved settings: key=value ...}, the keys in Rust's order).
     */
    String describeSettings(int frameMaxBytes) {
        return "egret.frame.max.bytes=" + frameMaxBytes
                + " egret.batch.size=" + sink.batchSize()
                + " egret.batch.flush.ms=" + TimeUnit.NANOSECONDS.toMillis(sink.flushNanos())
                + " egret.batch.flush.idle=" + sink.flushWhenIdle()
                + " egret.instance.inbound.bytes=" + inbound.maxBytes()
                + " egret.instance.outbound.bytes=" + sink.queueBytes()
                + " egret.backpressure.high.watermark.bytes=" + Long.toUnsignedString(settings.getHighWatermarkBytes())
                + " egret.backpressure.low.watermark.bytes=" + Long.toUnsignedString(settings.getLowWatermarkBytes())
                + " acking=" + acking
                + " topology.message.timeout.secs=" + messageTimeoutSecs
                + " topology.enable.message.timeouts=" + timeoutsEnabled
                + " egret.isolation=" + isolationName(settings.getIsolation())
                + " egret.isolation.jvm.overhead.mb=" + Integer.toUnsignedString(settings.getJvmOverheadMb())
                + " egret.instance.bridge=" + (settings.getBridge() == Bridge.BRIDGE_JNI ? "jni" : "socket")
                + " topology.testing.always.try.serialize=" + settings.getAlwaysTrySerialize()
                + " topology.reliability.mode="
                + (effectivelyOnce ? "EFFECTIVELY_ONCE" : acking ? "ATLEAST_ONCE" : "ATMOST_ONCE")
                + " egret.checkpoint.alignment.bytes=" + Long.toUnsignedString(alignmentBytes)
                + " egret.checkpoint.full.every=" + Math.max(1, settings.getCheckpointFullEvery())
                + " egret.sched.policy=" + (settings.getSchedPolicy() == SchedPolicy.SCHED_POLICY_BATCH ? "batch" : "other");
    }

    /** The config value naming {@code isolation}, as Rust names it (unspecified is auto). */
    private static String isolationName(Isolation isolation) {
        switch (isolation) {
            case ISOLATION_CGROUPS:
                return "cgroups";
            case ISOLATION_NONE:
                return "none";
            default:
                return "auto";
        }
    }

    static boolean isTrue(Object v) {
        return Boolean.TRUE.equals(v) || (v instanceof String && "true".equalsIgnoreCase((String) v));
    }
}

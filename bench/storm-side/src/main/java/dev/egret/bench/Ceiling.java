package dev.egret.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.storm.Constants;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.MessageId;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.utils.Utils;
import org.apache.storm.utils.TupleUtils;

/**
 * The no-framework ceiling of {@code egret bench}: a topology's own spouts and
 * bolts (deserialized from the submitted {@link StormTopology}) called directly
 * in one thread, with no queues, serialization, threads or network between them.
 *
 * <p>Semantics, kept as close to Storm's as a synchronous loop allows:
 * <ul>
 *   <li>tasks are numbered as Storm numbers them (components sorted by id, ids
 *   from 1), {@code topology.tasks} or the parallelism hint per component, each
 *   task its own deserialized instance with a real {@link TopologyContext};</li>
 *   <li>an emit calls each subscribed task's {@code execute} before returning,
 *   following the subscriptions: shuffle, local-or-shuffle and none round-robin
 *   over the target tasks, fields by {@link TupleUtils#chooseTaskIndex} (as
 *   Storm), all to every task, global to the lowest task, direct only through
 *   {@code emitDirect}, custom groupings through their own {@code chooseTasks};</li>
 *   <li>acking as Storm's acker decides it, counted instead of XORed: a tree is
 *   complete when every tuple delivered in it was acked; a fail fails the tree;
 *   trees older than {@code topology.message.timeout.secs} fail;
 *   {@code topology.max.spout.pending} bounds the open trees per spout task; with
 *   {@code topology.acker.executors: 0} a spout tuple with a message id is acked
 *   at once, as Storm does;</li>
 *   <li>a spout's {@code ack}/{@code fail} is never called from inside its own
 *   {@code nextTuple} (Storm's executor never does): completions queue and are
 *   delivered when {@code nextTuple} returns;</li>
 *   <li>task hooks ({@code topology.auto.task.hooks} and those components add)
 *   get what Storm gives them: emit, spout ack and fail (with the complete
 *   latency), bolt execute, ack and fail; so {@link LatencyHook} measures the
 *   ceiling as it measures Storm and Egret;</li>
 *   <li>tick tuples ({@code topology.tick.tuple.freq.secs}) reach a bolt from the
 *   loop thread at their period.</li>
 * </ul>
 *
 * <p>Not supported: shell components and components whose own threads emit (the
 * collectors are single-threaded by design: locking them would measure a cost
 * no framework-free call pays).
 *
 * <p>Not thread-safe: one thread builds, prepares and runs it.
 */
public final class Ceiling {
    static final String AUTO_TASK_HOOKS = "topology.auto.task.hooks";

    private final StormTopology topology;
    private final Map<String, Object> conf;
    private final boolean acking;
    private final Integer maxSpoutPending;
    private final long timeoutNanos;
    private final Map<Integer, String> taskToComponent = new TreeMap<>();
    private final Map<String, List<Integer>> componentToTasks = new TreeMap<>();
    private final Map<String, Map<String, Fields>> streamFields = new HashMap<>();
    private final GeneralTopologyContext general;
    private final Map<Integer, Task> tasks = new TreeMap<>();
    private final List<Task> spoutTasks = new ArrayList<>();
    private final List<Task> tickedTasks = new ArrayList<>();
    /** Tasks by id (index), for routing without a map lookup. */
    private final Task[] byId;
    /**
     * Trees still open after the spout call that created them returned, oldest
     * first (the timeout sweep reads the head). Most trees complete inside the
     * emit that creates them and never enter it.
     */
    private final LinkedHashSet<Tree> open = new LinkedHashSet<>();
    /** Trees created during the current spout call. */
    private final ArrayList<Tree> created = new ArrayList<>();
    /** Trees completed or failed, waiting for their spout's nextTuple to return. */
    private final ArrayDeque<Tree> completions = new ArrayDeque<>();
    private long nextRootId = 1;
    private long lastSweepNanos = System.nanoTime();
    private boolean prepared;

    /** One task: a component instance, its context and its outgoing subscriptions. */
    private final class Task {
        final int id;
        final String component;
        final TopologyContext context;
        final AtomicBoolean openOrPrepareCalled;
        final ISpout spout;
        final IBolt bolt;
        /** Subscriptions of this task's output, by stream. */
        final Map<String, List<Target>> targets = new HashMap<>();
        final List<ITaskHook> hooks;
        long openTrees;
        long tickPeriodNanos;
        long nextTickNanos;

        Task(int id, String component, TopologyContext context, AtomicBoolean openOrPrepareCalled, ISpout spout, IBolt bolt) {
            this.id = id;
            this.openOrPrepareCalled = openOrPrepareCalled;
            this.component = component;
            this.context = context;
            this.spout = spout;
            this.bolt = bolt;
            this.hooks = context.getHooks();
        }
    }

    /** How a subscription picks target tasks (Storm's groupings, folded). */
    private enum Kind { SHUFFLE, FIELDS, ALL, GLOBAL, DIRECT, CUSTOM }

    /** One subscription of one source task's stream. */
    private static final class Target {
        final Kind kind;
        final int[] tasks;
        final Fields outputFields;
        final Fields groupFields;
        final CustomStreamGrouping custom;
        int next;

        Target(Kind kind, int[] tasks, Fields outputFields, Fields groupFields, CustomStreamGrouping custom) {
            this.kind = kind;
            this.tasks = tasks;
            this.outputFields = outputFields;
            this.groupFields = groupFields;
            this.custom = custom;
        }
    }

    /** One spout tuple's tree (identity equality: it is its own key). */
    private static final class Tree {
        final Task spout;
        final Object messageId;
        final long rootId;
        final long startNanos;
        /** Tuples delivered in the tree and not acked yet. */
        long pending;
        /** Completed, failed or timed out: later acks and fails of its tuples are ignored. */
        boolean done;
        boolean failed;
        /** In {@link Ceiling#open}. */
        boolean tracked;

        Tree(Task spout, Object messageId, long rootId, long startNanos) {
            this.spout = spout;
            this.messageId = messageId;
            this.rootId = rootId;
            this.startNanos = startNanos;
        }
    }

    private static final Tree[] NO_ROOTS = new Tree[0];

    /**
     * A tuple that knows its trees directly (Storm's tuples carry root ids for
     * the acker; here the trees are in the same heap). Its {@link MessageId} is
     * built only if user code asks for it.
     */
    private static final class CeilingTuple extends TupleImpl {
        final Tree[] roots;

        CeilingTuple(GeneralTopologyContext context, List<Object> values, String component, int task, String stream,
                Tree[] roots) {
            super(context, values, component, task, stream, MessageId.makeUnanchored());
            this.roots = roots;
        }

        @Override
        public MessageId getMessageId() {
            if (roots.length == 0) {
                return MessageId.makeUnanchored();
            }
            Map<Long, Long> anchors = new HashMap<>();
            for (Tree t : roots) {
                anchors.put(t.rootId, 0L);
            }
            return MessageId.makeId(anchors);
        }
    }

    /**
     * Builds every task of {@code topology} (deserializing its components) under
     * {@code conf}, the topology config merged over Storm's defaults.
     */
    public Ceiling(String topologyId, StormTopology topology, Map<String, Object> conf) throws IOException {
        this.topology = topology;
        this.conf = conf;
        Object ackers = conf.get("topology.acker.executors");
        this.acking = ackers == null || ((Number) ackers).intValue() > 0;
        Object pending = conf.get("topology.max.spout.pending");
        this.maxSpoutPending = pending == null ? null : ((Number) pending).intValue();
        Object timeout = conf.get("topology.message.timeout.secs");
        this.timeoutNanos = (timeout == null ? 30L : ((Number) timeout).longValue()) * 1_000_000_000L;

        Map<String, ComponentCommon> commons = new TreeMap<>();
        topology.get_spouts().forEach((id, s) -> commons.put(id, s.get_common()));
        topology.get_bolts().forEach((id, b) -> commons.put(id, b.get_common()));
        for (String id : commons.keySet()) {
            if (id.startsWith("__")) {
                throw new IllegalArgumentException("component id " + id + " is reserved for Storm's system components");
            }
        }
        int nextTask = 1;
        for (Map.Entry<String, ComponentCommon> e : commons.entrySet()) {
            int count = taskCount(e.getValue());
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                taskToComponent.put(nextTask, e.getKey());
                ids.add(nextTask++);
            }
            componentToTasks.put(e.getKey(), Collections.unmodifiableList(ids));
            Map<String, Fields> fields = new HashMap<>();
            for (Map.Entry<String, StreamInfo> s : e.getValue().get_streams().entrySet()) {
                fields.put(s.getKey(), new Fields(s.getValue().get_output_fields()));
            }
            streamFields.put(e.getKey(), fields);
        }
        // Tick tuples come from Storm's system component.
        taskToComponent.put((int) Constants.SYSTEM_TASK_ID, Constants.SYSTEM_COMPONENT_ID);
        streamFields.put(Constants.SYSTEM_COMPONENT_ID, Map.of(Constants.SYSTEM_TICK_STREAM_ID, new Fields("rate_secs")));
        String stormId = topologyId;
        general = new GeneralTopologyContext(topology, conf, taskToComponent, componentToTasks, streamFields, stormId);

        Path codeDir = Files.createTempDirectory("egret-ceiling-code");
        Path pidDir = Files.createTempDirectory("egret-ceiling-pids");
        codeDir.toFile().deleteOnExit();
        pidDir.toFile().deleteOnExit();
        List<Integer> workerTasks = new ArrayList<>(componentToTasks.values().stream().flatMap(List::stream).toList());
        StormMetricRegistry metrics = new StormMetricRegistry();
        Map<Integer, Map<Integer, Map<String, IMetric>>> registeredMetrics = new HashMap<>();
        for (Map.Entry<Integer, String> e : taskToComponent.entrySet()) {
            if (e.getKey() < 0) {
                continue;
            }
            String component = e.getValue();
            Map<String, Object> componentConf = componentConf(commons.get(component));
            // Storm's guard: metrics may be registered in open/prepare only.
            AtomicBoolean openOrPrepareCalled = new AtomicBoolean(false);
            TopologyContext context = new TopologyContext(topology, componentConf, taskToComponent, componentToTasks,
                    streamFields, new HashMap<>(), stormId, codeDir.toString(), pidDir.toString(), e.getKey(), 6700,
                    workerTasks, new HashMap<>(), new HashMap<>(), new HashMap<>(), registeredMetrics,
                    openOrPrepareCalled, metrics);
            SpoutSpec spoutSpec = topology.get_spouts().get(component);
            Task task;
            if (spoutSpec != null) {
                task = new Task(e.getKey(), component, context, openOrPrepareCalled, instantiate(component, spoutSpec.get_spout_object(), ISpout.class), null);
                spoutTasks.add(task);
            } else {
                Bolt bolt = topology.get_bolts().get(component);
                task = new Task(e.getKey(), component, context, openOrPrepareCalled, null, instantiate(component, bolt.get_bolt_object(), IBolt.class));
                Object tick = componentConf.get("topology.tick.tuple.freq.secs");
                if (tick instanceof Number n && n.longValue() > 0) {
                    task.tickPeriodNanos = n.longValue() * 1_000_000_000L;
                    tickedTasks.add(task);
                }
            }
            Object hooks = componentConf.get(AUTO_TASK_HOOKS);
            if (hooks instanceof List<?> names) {
                for (Object name : names) {
                    context.addTaskHook(newHook(name.toString()));
                }
            }
            tasks.put(task.id, task);
        }
        byId = new Task[nextTask];
        for (Task source : tasks.values()) {
            byId[source.id] = source;
            wireTargets(source);
        }
    }

    private int taskCount(ComponentCommon common) {
        Map<String, Object> componentConf = common.is_set_json_conf() ? Utils.parseJson(common.get_json_conf()) : Map.of();
        Object tasks = componentConf.get("topology.tasks");
        if (tasks instanceof Number n && n.intValue() > 0) {
            return n.intValue();
        }
        return common.is_set_parallelism_hint() && common.get_parallelism_hint() > 0 ? common.get_parallelism_hint() : 1;
    }

    private Map<String, Object> componentConf(ComponentCommon common) {
        Map<String, Object> merged = new HashMap<>(conf);
        if (common.is_set_json_conf()) {
            merged.putAll(Utils.parseJson(common.get_json_conf()));
        }
        return merged;
    }

    private static <T> T instantiate(String component, ComponentObject object, Class<T> type) {
        if (object.is_set_serialized_java()) {
            return type.cast(Utils.javaDeserialize(object.get_serialized_java(), Object.class));
        }
        if (object.is_set_java_object()) {
            return type.cast(org.apache.storm.Thrift.instantiateJavaObject(object.get_java_object()));
        }
        throw new IllegalArgumentException("component " + component
                + " is not a Java object (shell components have no ceiling: it calls Java components directly)");
    }

    private static ITaskHook newHook(String className) {
        try {
            return (ITaskHook) Class.forName(className, true, Thread.currentThread().getContextClassLoader())
                    .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("cannot create the task hook " + className + ": " + e, e);
        }
    }

    private void wireTargets(Task source) {
        for (Map.Entry<String, Bolt> b : topology.get_bolts().entrySet()) {
            int[] targetTasks = componentToTasks.get(b.getKey()).stream().mapToInt(Integer::intValue).toArray();
            for (Map.Entry<GlobalStreamId, Grouping> input : b.getValue().get_common().get_inputs().entrySet()) {
                GlobalStreamId stream = input.getKey();
                if (!stream.get_componentId().equals(source.component)) {
                    continue;
                }
                Fields output = streamFields.get(source.component).get(stream.get_streamId());
                if (output == null) {
                    throw new IllegalArgumentException(b.getKey() + " subscribes to " + source.component + "'s stream "
                            + stream.get_streamId() + ", which it does not declare");
                }
                Grouping g = input.getValue();
                Grouping._Fields kind = g.getSetField();
                Fields groupFields = null;
                CustomStreamGrouping custom = null;
                Kind sorted;
                switch (kind) {
                    case FIELDS -> {
                        if (g.get_fields().isEmpty()) {
                            sorted = Kind.GLOBAL;
                        } else {
                            sorted = Kind.FIELDS;
                            groupFields = new Fields(g.get_fields());
                        }
                    }
                    case ALL -> sorted = Kind.ALL;
                    case DIRECT -> sorted = Kind.DIRECT;
                    case CUSTOM_SERIALIZED -> {
                        sorted = Kind.CUSTOM;
                        custom = Utils.javaDeserialize(g.get_custom_serialized(), CustomStreamGrouping.class);
                    }
                    case CUSTOM_OBJECT -> {
                        sorted = Kind.CUSTOM;
                        custom = (CustomStreamGrouping) org.apache.storm.Thrift.instantiateJavaObject(g.get_custom_object());
                    }
                    default -> sorted = Kind.SHUFFLE;
                }
                if (custom != null) {
                    custom.prepare(source.context, stream, componentToTasks.get(b.getKey()));
                }
                source.targets.computeIfAbsent(stream.get_streamId(), k -> new ArrayList<>())
                        .add(new Target(sorted, targetTasks, output, groupFields, custom));
            }
        }
    }

    /** Prepares every hook, opens and activates every spout, prepares every bolt (bolts first, as downstream is ready before tuples flow). */
    public void prepare() {
        for (Task t : tasks.values()) {
            for (ITaskHook hook : new ArrayList<>(t.hooks)) {
                hook.prepare(t.context.getConf(), t.context);
            }
        }
        for (Task t : tasks.values()) {
            if (t.bolt != null) {
                t.bolt.prepare(t.context.getConf(), t.context, new OutputCollector(new BoltCollector(t)));
                t.openOrPrepareCalled.set(true);
            }
        }
        for (Task t : spoutTasks) {
            t.spout.open(t.context.getConf(), t.context, new SpoutOutputCollector(new SpoutCollector(t)));
            t.openOrPrepareCalled.set(true);
            t.spout.activate();
        }
        long now = System.nanoTime();
        for (Task t : tickedTasks) {
            t.nextTickNanos = now + t.tickPeriodNanos;
        }
        prepared = true;
        settle();
    }

    /**
     * One pass: each spout task's {@code nextTuple} once (unless it has
     * {@code topology.max.spout.pending} open trees), its completions delivered,
     * then due ticks and timeouts. Returns whether any spout was called.
     */
    public boolean step() {
        if (!prepared) {
            throw new IllegalStateException("prepare() first");
        }
        boolean called = false;
        for (int i = 0; i < spoutTasks.size(); i++) {
            Task t = spoutTasks.get(i);
            if (maxSpoutPending != null && t.openTrees >= maxSpoutPending) {
                continue;
            }
            t.spout.nextTuple();
            called = true;
            settle();
        }
        long now = System.nanoTime();
        if (!tickedTasks.isEmpty()) {
            for (Task t : tickedTasks) {
                if (now - t.nextTickNanos >= 0) {
                    t.nextTickNanos += t.tickPeriodNanos;
                    deliver(t, new TupleImpl(general, List.of((int) (t.tickPeriodNanos / 1_000_000_000L)),
                            Constants.SYSTEM_COMPONENT_ID, (int) Constants.SYSTEM_TASK_ID, Constants.SYSTEM_TICK_STREAM_ID,
                            MessageId.makeUnanchored()));
                }
            }
            settle();
        }
        if (now - lastSweepNanos >= 100_000_000L) {
            lastSweepNanos = now;
            expire(now);
        }
        return called;
    }

    /** Runs {@link #step} until {@code deadlineNanos} ({@link System#nanoTime}), or forever with {@link Long#MAX_VALUE}. */
    public void runUntil(long deadlineNanos) {
        while (deadlineNanos == Long.MAX_VALUE || System.nanoTime() - deadlineNanos < 0) {
            if (!step()) {
                // Every spout is held by max.spout.pending: wait for timeouts, as Storm's spout wait strategy does.
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Deactivates and closes the spouts, cleans the bolts and the hooks up. */
    public void shutdown() {
        for (Task t : spoutTasks) {
            t.spout.deactivate();
            t.spout.close();
        }
        for (Task t : tasks.values()) {
            if (t.bolt != null) {
                t.bolt.cleanup();
            }
            for (ITaskHook hook : t.hooks) {
                hook.cleanup();
            }
        }
    }

    /** Open trees now (for tests). */
    int openTrees() {
        return open.size();
    }

    /** The task ids of a component (for tests). */
    List<Integer> tasksOf(String component) {
        return componentToTasks.get(component);
    }

    private void expire(long now) {
        Iterator<Tree> it = open.iterator();
        while (it.hasNext()) {
            Tree tree = it.next();
            if (now - tree.startNanos < timeoutNanos) {
                break;
            }
            it.remove();
            tree.tracked = false;
            tree.done = true;
            tree.failed = true;
            completions.add(tree);
        }
        settle();
    }

    private void finish(Tree tree, boolean failed) {
        tree.done = true;
        tree.failed = failed;
        if (tree.tracked) {
            tree.tracked = false;
            open.remove(tree);
        }
        completions.add(tree);
    }

    /**
     * After a spout call: trees it created that are still open start being
     * tracked, then completions reach their spouts (whose ack and fail may emit
     * again, hence the loop).
     */
    private void settle() {
        while (!created.isEmpty() || !completions.isEmpty()) {
            for (int i = 0; i < created.size(); i++) {
                Tree t = created.get(i);
                if (!t.done) {
                    t.tracked = true;
                    open.add(t);
                }
            }
            created.clear();
            deliverCompletions();
        }
    }

    private void deliverCompletions() {
        Tree tree;
        while ((tree = completions.poll()) != null) {
            Task spout = tree.spout;
            spout.openTrees--;
            long latencyMs = (System.nanoTime() - tree.startNanos) / 1_000_000L;
            if (tree.failed) {
                spout.spout.fail(tree.messageId);
                if (!spout.hooks.isEmpty()) {
                    new SpoutFailInfo(tree.messageId, spout.id, latencyMs).applyOn(spout.context);
                }
            } else {
                spout.spout.ack(tree.messageId);
                if (!spout.hooks.isEmpty()) {
                    new SpoutAckInfo(tree.messageId, spout.id, latencyMs).applyOn(spout.context);
                }
            }
        }
    }

    /** The tasks a tuple on {@code stream} of {@code source} goes to (directTask &ge; 0: emitDirect). */
    private List<Integer> route(Task source, String stream, List<Object> values, int directTask) {
        List<Target> targets = source.targets.get(stream);
        if (targets == null) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>(targets.size());
        for (Target t : targets) {
            switch (t.kind) {
                case SHUFFLE -> {
                    out.add(t.tasks[t.next]);
                    t.next = t.next + 1 == t.tasks.length ? 0 : t.next + 1;
                }
                case FIELDS -> out.add(t.tasks[TupleUtils.chooseTaskIndex(t.outputFields.select(t.groupFields, values), t.tasks.length)]);
                case ALL -> {
                    for (int task : t.tasks) {
                        out.add(task);
                    }
                }
                case GLOBAL -> out.add(t.tasks[0]);
                case DIRECT -> {
                    if (directTask >= 0) {
                        for (int task : t.tasks) {
                            if (task == directTask) {
                                out.add(task);
                            }
                        }
                    }
                }
                case CUSTOM -> out.addAll(t.custom.chooseTasks(source.id, values));
                default -> throw new IllegalStateException(t.kind.toString());
            }
        }
        return out;
    }

    private void deliver(Task target, Tuple tuple) {
        target.bolt.execute(tuple);
        if (!target.hooks.isEmpty()) {
            new BoltExecuteInfo(tuple, target.id, null).applyOn(target.context);
        }
    }

    private void emitted(Task source, String stream, List<Object> values, List<Integer> outTasks) {
        if (!source.hooks.isEmpty()) {
            new EmitInfo(values, stream, source.id, outTasks).applyOn(source.context);
        }
    }

    /** The trees a bolt's anchors belong to. */
    private Tree[] rootsOf(Collection<Tuple> anchors) {
        if (!acking || anchors == null || anchors.isEmpty()) {
            return NO_ROOTS;
        }
        if (anchors.size() == 1) {
            return anchors.iterator().next() instanceof CeilingTuple c ? c.roots : NO_ROOTS;
        }
        List<Tree> all = new ArrayList<>();
        for (Tuple anchor : anchors) {
            if (anchor instanceof CeilingTuple c) {
                for (Tree t : c.roots) {
                    if (!all.contains(t)) {
                        all.add(t);
                    }
                }
            }
        }
        return all.toArray(NO_ROOTS);
    }

    private void acked(Tuple tuple) {
        if (tuple instanceof CeilingTuple c) {
            for (Tree tree : c.roots) {
                if (!tree.done && --tree.pending == 0) {
                    finish(tree, false);
                }
            }
        }
    }

    private void failed(Tuple tuple) {
        if (tuple instanceof CeilingTuple c) {
            for (Tree tree : c.roots) {
                if (!tree.done) {
                    finish(tree, true);
                }
            }
        }
    }

    private final class SpoutCollector implements ISpoutOutputCollector {
        private final Task task;

        SpoutCollector(Task task) {
            this.task = task;
        }

        @Override
        public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
            return send(streamId, tuple, messageId, -1);
        }

        @Override
        public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
            send(streamId, tuple, messageId, taskId);
        }

        private List<Integer> send(String streamId, List<Object> values, Object messageId, int directTask) {
            List<Integer> out = route(task, streamId, values, directTask);
            emitted(task, streamId, values, out);
            if (messageId == null || !acking) {
                for (int i = 0; i < out.size(); i++) {
                    deliver(byId[out.get(i)], new CeilingTuple(general, values, task.component, task.id, streamId, NO_ROOTS));
                }
                if (messageId != null) {
                    // No ackers: Storm acks a spout tuple as soon as it is emitted.
                    task.openTrees++;
                    finish(new Tree(task, messageId, 0, System.nanoTime()), false);
                }
                return out;
            }
            Tree tree = new Tree(task, messageId, nextRootId++, System.nanoTime());
            task.openTrees++;
            if (out.isEmpty()) {
                finish(tree, false);
                return out;
            }
            // Counted before any delivery: a synchronous ack downstream must not complete the tree early.
            tree.pending = out.size();
            created.add(tree);
            Tree[] roots = {tree};
            for (int i = 0; i < out.size(); i++) {
                deliver(byId[out.get(i)], new CeilingTuple(general, values, task.component, task.id, streamId, roots));
            }
            return out;
        }

        @Override
        public long getPendingCount() {
            return task.openTrees;
        }

        @Override
        public void flush() {}

        @Override
        public void reportError(Throwable error) {
            System.err.println("egret ceiling: " + task.component + " reported an error: " + error);
        }
    }

    private final class BoltCollector implements IOutputCollector {
        private final Task task;

        BoltCollector(Task task) {
            this.task = task;
        }

        @Override
        public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            return send(streamId, anchors, tuple, -1);
        }

        @Override
        public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            send(streamId, anchors, tuple, taskId);
        }

        private List<Integer> send(String streamId, Collection<Tuple> anchors, List<Object> values, int directTask) {
            List<Integer> out = route(task, streamId, values, directTask);
            emitted(task, streamId, values, out);
            if (out.isEmpty()) {
                return out;
            }
            Tree[] roots = rootsOf(anchors);
            // Counted before any delivery: a synchronous ack downstream must not complete the tree early.
            for (Tree t : roots) {
                if (!t.done) {
                    t.pending += out.size();
                }
            }
            for (int i = 0; i < out.size(); i++) {
                deliver(byId[out.get(i)], new CeilingTuple(general, values, task.component, task.id, streamId, roots));
            }
            return out;
        }

        @Override
        public void ack(Tuple input) {
            acked(input);
            if (!task.hooks.isEmpty()) {
                new BoltAckInfo(input, task.id, null).applyOn(task.context);
            }
        }

        @Override
        public void fail(Tuple input) {
            failed(input);
            if (!task.hooks.isEmpty()) {
                new BoltFailInfo(input, task.id, null).applyOn(task.context);
            }
        }

        @Override
        public void resetTimeout(Tuple input) {}

        @Override
        public void flush() {}

        @Override
        public void reportError(Throwable error) {
            System.err.println("egret ceiling: " + task.component + " reported an error: " + error);
        }
    }
}

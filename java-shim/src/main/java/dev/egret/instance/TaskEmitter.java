package dev.egret.instance;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.egret.metrics.TaskStats;
import dev.egret.proto.AckEntry;
import dev.egret.proto.AckKind;
import dev.egret.proto.RootId;
import dev.egret.serialization.TupleValuesCodec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.hooks.info.EmitInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits tuples for one task: routes them with the task's {@link GroupingRouter}, serializes the
 * values once and hands one {@code TupleData} per target task to the sink, all sharing
 * the same bytes. Tracked emits also give each copy its roots and edge id and hand the
 * ledger updates they imply to the sink in the same call (see the acking contract).
 */
final class TaskEmitter {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");
    /** Storm's {@code StormCommon.EVENTLOGGER_STREAM_ID}. */
    static final String EVENTLOG_STREAM = dev.egret.metrics.EventLoggers.STREAM_ID;

    private final int taskId;
    private final String component;
    private final GroupingRouter router;
    private final OutboundSink sink;
    private final ThreadLocal<TupleValuesCodec> codecs;
    private final boolean debug;
    private final TaskStats stats;
    /** The task's context once its hooks may be called (null: no hooks). */
    private volatile org.apache.storm.task.TopologyContext hookContext;
    /** The executor's event logging; null when the component's events have no subscriber. */
    private volatile EventSampler eventSampler;
    private volatile boolean warnedEventLog;
    /** Emits so far; the spout loop reads it to decide whether to back off. Racy reads are fine. */
    volatile long emitted;

    TaskEmitter(int taskId, String component, GroupingRouter router, OutboundSink sink,
                ThreadLocal<TupleValuesCodec> codecs, boolean debug) {
        this(taskId, component, router, sink, codecs, debug, new TaskStats());
    }

    TaskEmitter(int taskId, String component, GroupingRouter router, OutboundSink sink,
                ThreadLocal<TupleValuesCodec> codecs, boolean debug, TaskStats stats) {
        this.stats = stats;
        this.taskId = taskId;
        this.component = component;
        this.router = router;
        this.sink = sink;
        this.codecs = codecs;
        this.debug = debug;
    }

    /**
     * Copies to tasks of this JVM go with their values by reference ({@link LocalValues}):
     * {@code sameContainer} says which tasks may be here. Called before the task emits.
     */
    void passByReference(java.util.function.IntPredicate sameContainer) {
        this.sameContainer = sameContainer;
    }

    /** Marks a destination that is never in this JVM in {@link #ringsByDest}. */
    private static final LocalValues.Ring NOT_HERE = new LocalValues.Ring();
    /** Null: every copy is serialized (the socket bridge, or Storm's always-try-serialize). */
    private java.util.function.IntPredicate sameContainer;
    /** By destination task: its ring from this task, {@link #NOT_HERE}, or null (not known yet). Racy. */
    private LocalValues.Ring[] ringsByDest = new LocalValues.Ring[0];

    /**
     * The arrays of one emit's copies (destinations, edge ids, rings), which the sink reads
     * during {@code addCopies} only: one set per thread, reused, so that an emit allocates
     * none of them. An emit nested in another on one thread (a serializer that emits) gets a
     * set of its own.
     */
    private static final class Copies {
        int[] dests = new int[4];
        long[] edges = new long[4];
        LocalValues.Ring[] rings = new LocalValues.Ring[4];
        boolean busy;
    }

    private static final ThreadLocal<Copies> COPIES = ThreadLocal.withInitial(Copies::new);

    /** This thread's arrays for an emit of {@code n} copies; {@link #release} them after. */
    private static Copies copies(int n) {
        Copies c = COPIES.get();
        if (c.busy) {
            c = new Copies();
        }
        if (c.dests.length < n) {
            int size = Math.max(n, c.dests.length * 2);
            c.dests = new int[size];
            c.edges = new long[size];
            c.rings = new LocalValues.Ring[size];
        }
        c.busy = true;
        return c;
    }

    private static void release(Copies c, int n) {
        // No ring stays reachable from a thread's arrays after the emit.
        java.util.Arrays.fill(c.rings, 0, n, null);
        c.busy = false;
    }

    /**
     * Sets {@code rings[i]} for the copies that go by reference (to a task of this JVM whose
     * ring has room), null for the others; returns {@code rings}, or null when none does.
     */
    private LocalValues.Ring[] localRings(int[] dests, int n, LocalValues.Ring[] rings) {
        if (sameContainer == null || n == 0) {
            return null;
        }
        boolean any = false;
        for (int i = 0; i < n; i++) {
            LocalValues.Ring r = ringTo(dests[i]);
            if (r != null && r.hasRoom()) {
                rings[i] = r;
                any = true;
            } else {
                rings[i] = null;
            }
        }
        return any ? rings : null;
    }

    /**
     * The values' bytes when a copy needs them (one to another JVM, or to a full ring), else
     * null. Serialized here, before the sink appends anything: a value Kryo cannot write fails
     * the emit whole, as without references.
     */
    private ByteString bytesIfNeeded(List<Object> values, LocalValues.Ring[] rings, int n) {
        boolean all = rings != null;
        for (int i = 0; all && i < n; i++) {
            all = rings[i] != null;
        }
        return all ? null : UnsafeByteOperations.unsafeWrap(codecs.get().serialize(values));
    }

    private LocalValues.Ring ringTo(int dest) {
        LocalValues.Ring r = LocalValues.at(ringsByDest, dest);
        if (r == null) {
            if (dest < 0) {
                return null;
            }
            if (!sameContainer.test(dest)) {
                r = NOT_HERE;
            } else if (LocalValues.hosts(dest)) {
                r = LocalValues.ring(taskId, dest);
            } else {
                // Its executor has not started yet: serialized until it has.
                return null;
            }
            ringsByDest = LocalValues.with(ringsByDest, dest, r);
        }
        return r == NOT_HERE ? null : r;
    }

    /**
     * Hands the first {@code n} copies to the sink; the codec only when some may go by
     * reference (its fallback).
     */
    private void addCopies(List<AckEntry> acks, String stream, ByteString bytes, List<RootId> roots, int[] dests,
                           long[] edges, int n, List<Object> values, LocalValues.Ring[] rings) {
        sink.addCopies(acks, taskId, streamBytes(stream), bytes, roots, dests, edges, n, values, rings,
                rings == null ? null : codecs.get());
    }

    /** From now on emits are shown to the task hooks of {@code context} (Storm's EmitInfo). */
    void hooks(org.apache.storm.task.TopologyContext context) {
        this.hookContext = context;
    }

    private void applyEmitHooks(String stream, List<Object> values, List<Integer> targets) {
        org.apache.storm.task.TopologyContext ctx = hookContext;
        if (ctx != null && !ctx.getHooks().isEmpty()) {
            new EmitInfo(values, stream, taskId, targets).applyOn(ctx);
        }
    }

    int taskId() {
        return taskId;
    }

    /** From now on emits are sampled to the event logger by {@code sampler}. */
    void eventSampler(EventSampler sampler) {
        this.eventSampler = sampler;
    }

    /**
     * Storm's event logging, after a collector's emit: when the component's debugging is on and
     * the draw selects this tuple, an event {@code (component-id, message-id, ts, values)} on
     * {@code __eventlog} (untracked, like Storm's). An event that cannot be serialized (a message
     * id of a class Kryo does not know) is sent with the message id's text, else dropped with a
     * warning: debugging never fails the user's emit.
     */
    void eventLog(Object messageId, List<Object> values) {
        EventSampler sampler = eventSampler;
        if (sampler == null || !sampler.sample()) {
            return;
        }
        long now = System.currentTimeMillis();
        List<Object> copy = new ArrayList<>(values);
        try {
            emitSystem(EVENTLOG_STREAM, java.util.Arrays.asList(component, messageId, now, copy));
        } catch (RuntimeException e) {
            try {
                emitSystem(EVENTLOG_STREAM, java.util.Arrays.asList(component,
                        messageId == null ? null : messageId.toString(), now, copy));
            } catch (RuntimeException again) {
                if (!warnedEventLog) {
                    warnedEventLog = true;
                    LOG.warn("Event logging of {}:{} drops events it cannot serialize: {}", component, taskId,
                            again.toString());
                }
            }
        }
    }

    boolean debug() {
        return debug;
    }

    /** A stream's name and its UTF-8 bytes, immutable: what {@link #lastStream} remembers. */
    private static final class StreamBytes {
        final String name;
        final ByteString bytes;

        StreamBytes(String name) {
            this.name = name;
            this.bytes = ByteString.copyFromUtf8(name);
        }
    }

    /**
     * The stream emitted on last, with its encoded name: a copy's stream is set as bytes,
     * so encoding it copies them instead of measuring and encoding the string's UTF-8 twice
     * per copy (size, then write). Racy on purpose (emits may come from user threads): a
     * {@link StreamBytes} is immutable, and any one seen names its own stream rightly.
     */
    private StreamBytes lastStream;

    private ByteString streamBytes(String stream) {
        StreamBytes last = lastStream;
        if (last == null || !last.name.equals(stream)) {
            last = new StreamBytes(stream);
            lastStream = last;
        }
        return last.bytes;
    }

    /** An untracked emit (no roots): a spout emit without message id, an unanchored bolt emit. */
    List<Integer> emit(String stream, List<Object> values) {
        return emit(stream, values, 0L, null);
    }

    /**
     * Emits on a stream. With a non-zero {@code rootKey} (a tracked spout emit) the copies
     * become the roots of a new tree; with {@code anchors} (a bolt emit) they join the
     * anchors' trees; otherwise they are untracked.
     */
    List<Integer> emit(String stream, List<Object> values, long rootKey, Collection<Tuple> anchors) {
        checkArgs(stream, values);
        List<Integer> targets = router.route(taskId, stream, values);
        if (debug) {
            LOG.info("Emitting: {} {} {}", component, stream, values);
        }
        applyEmitHooks(stream, values, targets);
        send(stream, values, targets, rootKey, anchors);
        stats.emitted(stream, targets.size());
        emitted++;
        return targets;
    }

    /**
     * An untracked emit by the runtime itself (the {@code __metrics} tuples): routed and sent
     * like any emit, but not counted in the task's statistics, as Storm does not count them.
     */
    List<Integer> emitSystem(String stream, List<Object> values) {
        checkArgs(stream, values);
        List<Integer> targets = router.route(taskId, stream, values);
        // Storm's metrics tick emits through the task's outgoing path, which shows hooks the emit.
        applyEmitHooks(stream, values, targets);
        send(stream, values, targets, 0L, null);
        return targets;
    }

    void emitDirect(int targetTask, String stream, List<Object> values) {
        emitDirect(targetTask, stream, values, 0L, null);
    }

    void emitDirect(int targetTask, String stream, List<Object> values, long rootKey, Collection<Tuple> anchors) {
        checkArgs(stream, values);
        boolean deliver = router.routeDirect(stream, targetTask);
        if (debug) {
            LOG.info("Emitting direct: {}; {} {} {}", targetTask, component, stream, values);
        }
        List<Integer> targets = deliver ? Collections.singletonList(targetTask) : Collections.emptyList();
        applyEmitHooks(stream, values, targets);
        send(stream, values, targets, rootKey, anchors);
        stats.emitted(stream, deliver ? 1 : 0);
        emitted++;
    }

    private static void checkArgs(String stream, List<Object> values) {
        if (stream == null) {
            throw new IllegalArgumentException("stream id must not be null");
        }
        if (values == null) {
            throw new IllegalArgumentException("tuple values must not be null");
        }
    }

    /** A random non-zero 64-bit id (0 would vanish from the ledger's XOR). */
    static long nonZeroRandom() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long v;
        do {
            v = random.nextLong();
        } while (v == 0);
        return v;
    }

    private void send(String stream, List<Object> values, List<Integer> targets, long rootKey,
                      Collection<Tuple> anchors) {
        if (rootKey != 0) {
            sendRoots(stream, values, targets, rootKey);
            return;
        }
        if (targets.isEmpty()) {
            return;
        }
        int n = targets.size();
        Copies c = copies(n);
        try {
            int[] dests = c.dests;
            for (int i = 0; i < n; i++) {
                dests[i] = targets.get(i);
            }
            LocalValues.Ring[] rings = localRings(dests, n, c.rings);
            ByteString bytes = bytesIfNeeded(values, rings, n);
            if (anchors != null && !anchors.isEmpty()
                    && sendAnchored(stream, values, dests, n, c.edges, bytes, rings, anchors)) {
                return;
            }
            for (int i = 0; i < n; i++) {
                logTransfer(dests[i], stream, values, "{}");
            }
            addCopies(Collections.emptyList(), stream, bytes, Collections.emptyList(), dests, null, n, values, rings);
        } finally {
            release(c, n);
        }
    }

    /** A new tree: one edge per copy, and its INIT (XOR of the edges) ahead of them in the batch. */
    private void sendRoots(String stream, List<Object> values, List<Integer> targets, long rootKey) {
        RootId root = RootId.newBuilder().setSpoutTask(taskId).setKey(rootKey).build();
        int n = targets.size();
        Copies c = copies(n);
        try {
            int[] dests = c.dests;
            long[] edges = c.edges;
            long xor = 0;
            ByteString bytes = ByteString.EMPTY;
            LocalValues.Ring[] rings = null;
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    dests[i] = targets.get(i);
                    long edge = nonZeroRandom();
                    edges[i] = edge;
                    xor ^= edge;
                    logTransfer(dests[i], stream, values, debug ? "{" + rootKey + "=" + edge + "}" : null);
                }
                rings = localRings(dests, n, c.rings);
                bytes = bytesIfNeeded(values, rings, n);
            }
            AckEntry init = AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(root).setXor(xor).build();
            addCopies(Collections.singletonList(init), stream, bytes, Collections.singletonList(root), dests, edges, n,
                    values, rings);
        } finally {
            release(c, n);
        }
    }

    /**
     * Storm's anchoring: each copy gets an edge id {@code e}, its roots are the union of the
     * anchors' roots, and each live anchor's ack value accumulates {@code e}, so acking the
     * anchor XORs {@code e} into each of its roots' entries (the copy's creation), and acking
     * the copy XORs it out again.
     *
     * <p>The wire has one edge id per copy, where Storm has one per (anchor, copy) pair. When a
     * root is reached through an even number of live anchors (two anchors of the same tree,
     * the same anchor twice, or only through anchors already acked), the anchors' acks would
     * cancel {@code e} for that root; the emitter then XORs {@code e} into that root's entry
     * itself, with an ACK entry in the same batch. The tree cannot complete early because of
     * it: the anchors themselves are still pending in the entry (or the tree is already done).
     *
     * @return false when no anchor carries a root (the emit is untracked)
     */
    private boolean sendAnchored(String stream, List<Object> values, int[] dests, int n, long[] edges,
                                 ByteString bytes, LocalValues.Ring[] rings, Collection<Tuple> anchors) {
        List<TupleImpl> live;
        List<RootId> roots;
        List<RootId> uncovered;
        TupleImpl single = singleLiveAnchorWithOneRoot(anchors);
        if (single != null) {
            // The usual bolt emit (one anchor, of one tree): its root is reached once.
            live = null;
            roots = ((TreeMessageId) single.getMessageId()).roots();
            uncovered = Collections.emptyList();
        } else {
            // Root -> parity of the live anchors reaching it.
            Map<RootId, Boolean> parity = new LinkedHashMap<>();
            live = new ArrayList<>(anchors.size());
            for (Tuple a : anchors) {
                if (a == null || !(a.getMessageId() instanceof TreeMessageId)) {
                    continue;
                }
                TreeMessageId id = (TreeMessageId) a.getMessageId();
                boolean counts = a instanceof TupleImpl && !id.isCompleted();
                if (counts) {
                    live.add((TupleImpl) a);
                }
                for (RootId r : id.roots()) {
                    Boolean odd = parity.get(r);
                    parity.put(r, counts ? !Boolean.TRUE.equals(odd) : Boolean.TRUE.equals(odd));
                }
            }
            if (parity.isEmpty()) {
                return false;
            }
            roots = new ArrayList<>(parity.keySet());
            uncovered = new ArrayList<>();
            for (Map.Entry<RootId, Boolean> e : parity.entrySet()) {
                if (!e.getValue()) {
                    uncovered.add(e.getKey());
                }
            }
        }
        List<AckEntry> acks = uncovered.isEmpty() ? Collections.emptyList()
                : new ArrayList<>(uncovered.size() * n);
        for (int i = 0; i < n; i++) {
            long edge = nonZeroRandom();
            edges[i] = edge;
            if (single != null) {
                single.updateAckVal(edge);
            } else {
                for (TupleImpl a : live) {
                    a.updateAckVal(edge);
                }
            }
            for (RootId r : uncovered) {
                acks.add(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_ACK).setRoot(r).setXor(edge).build());
            }
            logTransfer(dests[i], stream, values, debug ? idText(roots, edge) : null);
        }
        addCopies(acks, stream, bytes, roots, dests, edges, n, values, rings);
        return true;
    }

    /** The anchor, when {@code anchors} is one live tuple of one tree; else null. */
    private static TupleImpl singleLiveAnchorWithOneRoot(Collection<Tuple> anchors) {
        if (anchors.size() != 1) {
            return null;
        }
        Tuple a = anchors.iterator().next();
        if (!(a instanceof TupleImpl) || !(a.getMessageId() instanceof TreeMessageId)) {
            return null;
        }
        TreeMessageId id = (TreeMessageId) a.getMessageId();
        return !id.isCompleted() && id.roots().size() == 1 ? (TupleImpl) a : null;
    }

    private static String idText(List<RootId> roots, long edge) {
        StringBuilder sb = new StringBuilder("{");
        for (RootId r : roots) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(r.getKey()).append('=').append(edge);
        }
        return sb.append('}').toString();
    }

    private void logTransfer(int dest, String stream, List<Object> values, String id) {
        if (debug) {
            LOG.info("TRANSFERRING tuple [dest: {} tuple: source: {}:{}, stream: {}, id: {}, {}"
                    + " PROC_START_TIME(sampled): null EXEC_START_TIME(sampled): null]",
                    dest, component, taskId, stream, id, values);
        }
    }
}

package dev.egret.instance;

import com.google.protobuf.ByteString;
import dev.egret.proto.CheckpointComplete;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.StateKind;
import dev.egret.proto.StateLoad;
import dev.egret.proto.StateReply;
import dev.egret.proto.StateSave;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.task.TopologyContext;

/**
 * A task's durable state, kept by the stream manager in the topology's checkpoint store
 * (contracts.md, "Durable state"). Each call sends one request on the instance's connection
 * and blocks until the stream manager's {@code StateReply} (the reader thread hands it
 * over, never the executor's queue): when a save returns, the state is on disk.
 *
 * <p>A request fails with a {@link StateException} when the stream manager refuses it,
 * when the connection is lost before its reply (the instance is restarted and recovers
 * from the store) or after {@link #TIMEOUT_SECONDS}.
 */
public final class StateChannel implements StateStore {

    /** How long a request waits for its reply. */
    static final long TIMEOUT_SECONDS = 60;

    private static volatile StateChannel current;
    /**
     * The channel of the executor whose thread (or a thread it started) asks: with the JNI
     * bridge one JVM runs several executors, each installing its own.
     */
    private static final InheritableThreadLocal<StateChannel> OF_THREAD = new InheritableThreadLocal<>();

    private final OutboundSink sink;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<Long, CompletableFuture<StateReply>> pending = new ConcurrentHashMap<>();

    /** The executor's input queue, held open while a call waits (null: none to hold). */
    private final InboundQueue inbound;
    /** With the JNI bridge, the executor's own reading, which a waiting call drives when nobody else reads. */
    private volatile DirectInbound reader;
    /** How long a waiting call reads (or waits for another reader) before it looks at its reply again. */
    private static final long PUMP_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    StateChannel(OutboundSink sink) {
        this(sink, null);
    }

    StateChannel(OutboundSink sink, InboundQueue inbound) {
        this.sink = sink;
        this.inbound = inbound;
    }

    /**
     * The channel of the calling executor (the one installed on this thread or the thread
     * that started it), else of this JVM's last installed instance; null when the JVM is not
     * an Egret instance.
     */
    public static StateChannel current() {
        StateChannel own = OF_THREAD.get();
        return own != null ? own : current;
    }

    /** The executor reads its own frames through {@code direct} (null: a reader thread delivers the replies). */
    void readsWith(DirectInbound direct) {
        this.reader = direct;
    }

    /** Installs the channel of the executor running on the calling thread. */
    static void install(StateChannel channel) {
        OF_THREAD.set(channel);
        current = channel;
    }

    private static volatile boolean effectivelyOnce;
    private static volatile int fullEvery = 1;
    private static final AtomicLong CONNECTION_EPOCH = new AtomicLong(1);

    /**
     * 1 for the JVM's first connection to its stream manager, one more after each reconnect:
     * tuples may have been lost between two epochs (effectively once: a task fails the
     * PREPAREs it sees until it has handled a ROLLBACK in the current epoch).
     */
    public static long connectionEpoch() {
        return CONNECTION_EPOCH.get();
    }

    static void reconnected() {
        CONNECTION_EPOCH.incrementAndGet();
    }

    /** Whether this JVM's topology runs with topology.reliability.mode EFFECTIVELY_ONCE (resolved by Rust). */
    public static boolean effectivelyOnce() {
        return effectivelyOnce;
    }

    static void effectivelyOnce(boolean on) {
        effectivelyOnce = on;
    }

    /**
     * egret.checkpoint.full.every (resolved by Rust): a durable state is stored whole at one
     * checkpoint in this many, as a delta on its previous checkpoint at the others.
     */
    public static int fullEvery() {
        return fullEvery;
    }

    static void fullEvery(int every) {
        fullEvery = Math.max(1, every);
    }

    /** Namespaces stored as deltas more often than {@link #fullEvery()} says (see {@link #fullEvery(String, int)}). */
    private static final Map<String, Integer> FULL_EVERY_OF = new ConcurrentHashMap<>();

    /**
     * A durable state of {@code namespace} made from now on is stored whole at one checkpoint
     * in {@code every} at least (or in {@link #fullEvery()}, if more): an effectively-once
     * spout's windows of message ids, of which each checkpoint adds one and drops one, so a
     * delta holds one window where a whole copy holds all of them.
     */
    static void fullEvery(String namespace, int every) {
        FULL_EVERY_OF.put(namespace, Math.max(1, every));
    }

    /** How often a durable state of {@code namespace} is stored whole: {@link #fullEvery()}, or more rarely. */
    public static int fullEvery(String namespace) {
        Integer every = FULL_EVERY_OF.get(namespace);
        return every == null ? fullEvery : Math.max(fullEvery, every);
    }

    /**
     * The input tasks of a task on {@code $checkpoint}: how many copies of each checkpoint action
     * it waits for (and, effectively once, the markers it aligns).
     */
    public static int checkpointInputTasks(TopologyContext context) {
        int count = 0;
        for (GlobalStreamId input : context.getThisSources().keySet()) {
            if (CheckpointSpout.CHECKPOINT_STREAM_ID.equals(input.get_streamId())) {
                count += context.getComponentTasks(input.get_componentId()).size();
            }
        }
        return count;
    }

    /** Per executor thread: task id to the checkpoint its alignment gave up ({@link MarkerAlignment}). */
    private static final ThreadLocal<Map<Integer, Long>> ABANDONED = ThreadLocal.withInitial(HashMap::new);

    /** Task {@code taskId} gave up aligning checkpoint {@code txid}: its PREPARE must fail. */
    static void abandon(int taskId, long txid) {
        ABANDONED.get().put(taskId, txid);
    }

    /**
     * Whether task {@code taskId} gave up aligning checkpoint {@code txid} (asked once, when the
     * PREPARE has come from every input; the answer is forgotten).
     */
    public static boolean abandoned(int taskId, long txid) {
        Map<Integer, Long> m = ABANDONED.get();
        Long t = m.get(taskId);
        if (t == null) {
            return false;
        }
        m.remove(taskId);
        return t == txid;
    }

    /** A failed state request. */
    public static final class StateException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StateException(String message) {
            super(message);
        }

        StateException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * What a task restarts from: a state is its whole state at the start of its chain
     * ({@code committed}, {@code prepared}), then its deltas in order (none: the whole state).
     */
    public static final class Loaded {
        public final boolean hasCommitted;
        public final long committedTxid;
        public final byte[] committed;
        public final List<byte[]> committedDeltas;
        public final boolean hasPrepared;
        public final long preparedTxid;
        public final byte[] prepared;
        public final List<byte[]> preparedDeltas;

        public Loaded(StateReply r) {
            this.hasCommitted = r.getHasCommitted();
            this.committedTxid = r.getCommittedTxid();
            this.committed = r.getCommitted().toByteArray();
            this.committedDeltas = bytes(r.getCommittedDeltasList());
            this.hasPrepared = r.getHasPrepared();
            this.preparedTxid = r.getPreparedTxid();
            this.prepared = r.getPrepared().toByteArray();
            this.preparedDeltas = bytes(r.getPreparedDeltasList());
        }

        private static List<byte[]> bytes(List<ByteString> in) {
            List<byte[]> out = new ArrayList<>(in.size());
            for (ByteString b : in) {
                out.add(b.toByteArray());
            }
            return out;
        }
    }

    @Override
    public void savePrepared(int task, String namespace, long txid, Long base, byte[] data) {
        save(task, namespace, StateKind.STATE_KIND_PREPARED, txid, base, data);
    }

    @Override
    public void saveCommitted(int task, String namespace, long txid, Long base, byte[] data) {
        save(task, namespace, StateKind.STATE_KIND_COMMITTED, txid, base, data);
    }

    @Override
    public void saveLocal(int task, String namespace, byte[] data) {
        save(task, namespace, StateKind.STATE_KIND_LOCAL, 0, null, data);
    }

    private void save(int task, String namespace, StateKind kind, long txid, Long base, byte[] data) {
        long id = nextId.getAndIncrement();
        StateSave.Builder save = StateSave.newBuilder().setRequestId(id).setTaskId(task).setNamespace(namespace)
                .setKind(kind).setTxid(txid).setData(ByteString.copyFrom(data));
        if (base != null) {
            save.setDelta(true).setBaseTxid(base);
        }
        call(id, "saving the state of " + namespace, InstanceToStreamManager.newBuilder().setStateSave(save).build());
    }

    @Override
    public Loaded load(int task, String namespace, boolean local) {
        long id = nextId.getAndIncrement();
        return new Loaded(call(id, "loading the state of " + namespace, InstanceToStreamManager.newBuilder()
                .setStateLoad(StateLoad.newBuilder().setRequestId(id).setTaskId(task).setNamespace(namespace)
                        .setLocal(local))
                .build()));
    }

    /** Checkpoint {@code txid} was committed by every task: the stream manager writes its marker. */
    public void complete(long txid) {
        long id = nextId.getAndIncrement();
        call(id, "completing checkpoint " + txid, InstanceToStreamManager.newBuilder()
                .setCheckpointComplete(CheckpointComplete.newBuilder().setRequestId(id).setTxid(txid))
                .build());
    }

    private StateReply call(long id, String what, InstanceToStreamManager request) {
        CompletableFuture<StateReply> reply = new CompletableFuture<>();
        pending.put(id, reply);
        // The reply comes on the connection the tuples come on: the reader must not block
        // on a full queue ahead of it while this thread, which empties the queue, waits.
        if (inbound != null) {
            inbound.holdOpen();
        }
        try {
            if (!sink.sendState(request)) {
                throw new StateException(what + " failed: not connected to the stream manager");
            }
            DirectInbound direct = reader;
            StateReply r = direct == null ? reply.get(TIMEOUT_SECONDS, TimeUnit.SECONDS) : awaitReading(reply, direct);
            if (!r.getError().isEmpty()) {
                throw new StateException(what + " failed: " + r.getError());
            }
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StateException(what + " was interrupted", e);
        } catch (ExecutionException e) {
            throw new StateException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new StateException(what + " got no answer from the stream manager within " + TIMEOUT_SECONDS + " s");
        } finally {
            pending.remove(id);
            if (inbound != null) {
                inbound.endHold();
            }
        }
    }

    /**
     * Waits for {@code reply} while the executor reads its own frames: this thread reads them
     * itself when no other does (the executor may be the caller, or blocked behind it), each
     * frame other than a reply queued for the executor.
     */
    private static StateReply awaitReading(CompletableFuture<StateReply> reply, DirectInbound direct)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!reply.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            long slice = Math.min(left, PUMP_SLICE_NANOS);
            if (!direct.pumpForReply(slice)) {
                try {
                    return reply.get(slice, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // Look again: the other reader may have stopped reading.
                }
            }
        }
        return reply.get();
    }

    /** On the reading thread: a reply arrived. */
    void deliver(StateReply reply) {
        CompletableFuture<StateReply> waiting = pending.get(reply.getRequestId());
        if (waiting != null) {
            waiting.complete(reply);
        }
    }

    /** The connection is gone: requests waiting for it fail now. */
    void connectionLost() {
        for (CompletableFuture<StateReply> waiting : pending.values()) {
            waiting.completeExceptionally(new StateException("the connection to the stream manager was lost"));
        }
    }
}

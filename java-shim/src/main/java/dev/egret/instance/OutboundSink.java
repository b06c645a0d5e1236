package dev.egret.instance;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.WireFormat;
import dev.egret.proto.AckEntry;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.ReportedError;
import dev.egret.proto.RootId;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import dev.egret.serialization.TupleValuesCodec;
import dev.egret.wire.FrameChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outgoing side of an instance: tuples and ledger updates ({@link AckEntry}) accumulate
 * in the current batch until {@code batchSize} entries (tuples plus acks) or
 * {@link #MAX_BATCH_BYTES} encoded bytes (a quarter of the queue bound, if less) are
 * buffered, or {@code flushNanos} have passed since the first one; the batch is then sealed
 * as one {@code InstanceToStreamManager{tuples}} frame and queued for the writer thread,
 * which writes queued frames in order.
 *
 * <p>Adaptive batching ({@code egret.batch.flush.idle}): the executor calls
 * {@link #executorIdle()} when it has run out of work (its input is empty, a spout round
 * emitted nothing). If the writer is idle too (nothing queued, nothing being written) and
 * the last batch was sealed at least {@link #IDLE_GAP_NANOS} ago, the batch is sealed at
 * once: at low load a tuple leaves with no timer wait. Otherwise the writer thread seals it
 * once it has written everything queued and that gap has passed (or on the timer, if
 * sooner; an instance's executor seals it itself at the gap's end,
 * {@link #sealIdleFromExecutor(boolean)}).
 * So an instance sends at most one idle-flushed batch per gap: each frame costs a
 * wake-up of every thread on its way, and at rates of thousands of tuples per second one
 * frame per tuple would cost more CPU than the tuples themselves; under load batches still
 * grow toward {@code batchSize}.
 *
 * <p>Why a writer thread: the stream manager stops reading a throttled spout's socket (its
 * backpressure), and a write then blocks. Only the writer thread blocks; the executor goes
 * on with tree events (ack/fail callbacks), ticks and state changes. The queue of sealed
 * frames is bounded in bytes ({@code queueBytes}, the frame being written included): an
 * emitting thread that seals a batch while the queue holds more than that waits for room,
 * which is how a bolt whose output is not read pushes back on its input. A spout's executor
 * asks {@link #writable()} before {@code nextTuple} and does not call it while the queue is
 * over half its bound, so it does not fill the queue while it cannot drain, and in practice
 * never blocks in an emit; the writer wakes it ({@code onWritable}) once the queue has
 * drained below half. The flush timer lives in the writer thread too, so a bolt busy with a
 * long inbound batch still sends its acks every {@code flushNanos}; while batches flow the
 * writer wakes once per flush interval to keep the next batch's timer, and only a batch that
 * starts while it waits with no deadline wakes it.
 *
 * <p>Writing on the sealing thread: a batch sealed while nothing is queued or being written
 * is first offered to the writer without waiting ({@link FrameWriter#tryWriteEncoded}, which
 * the JNI bridge's channel does when the stream manager's queue has room). Taken, it never
 * reaches the writer thread, which then costs no wake-up; refused, it is queued as usual,
 * and the batches after it queue behind it, so frames keep their order.
 *
 * <p>Encoding: each entry is encoded once, when it is added, straight into the current
 * batch's {@link CodedOutputStream} as a {@code TupleBatch} field (acks and tuples
 * interleaved in the order they came; protobuf keeps each repeated field's order). The
 * batch's array leaves room in front for the frame's length prefix and the
 * {@code InstanceToStreamManager.tuples} tag and length, filled in when it is sealed; the
 * sealed array is the frame, handed to the writer as it is ({@link FrameWriter#writeEncoded}).
 * There is no {@code TupleBatch} object, no list of entries and no second serialization.
 * Once written, a batch's array is kept (up to four, each at most a batch's bound) for a
 * later batch instead of becoming garbage: under load an executor seals a batch every few
 * hundred tuples, and in one JVM hosting many executors those arrays were a tenth of all it
 * allocated.
 *
 * <p>Ordering: the stream manager applies a batch's acks before routing its tuples. Entries
 * handed over together by {@link #add(List, List)} are appended under one lock, acks first,
 * and a batch is only sealed after both are in; so an INIT always travels in the same batch
 * as (or an earlier batch than) the first tuple of its tree. Control frames (ready, stats,
 * errors) are queued behind the entries buffered before them.
 *
 * <p>Connection: the writer thread writes to the current {@link FrameWriter}. When a write
 * fails the sink drops the buffered and queued entries, closes that writer (which ends the
 * reader thread, and so tells the executor) and discards everything handed to it until
 * {@link #connect} gives it a new writer. Callers, including user threads, never see the
 * failure: the tuples are lost as on a crash, and acking replays them. A write to an old
 * writer that fails after a reconnect is ignored (a generation number tells them apart).
 *
 * <p>Direct mode (the 3-argument constructor, for tests): no writer thread; frames are
 * written by the thread that seals them, and the caller drives the timer with
 * {@link #flushIfDue}.
 *
 * <p>Thread-safety: one lock guards the state; writes happen outside it (except in direct
 * mode), so emitting threads only wait for a full queue, never for the socket.
 */
final class OutboundSink {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    /** Where frames go; the real one is a {@code FrameChannel}. */
    interface FrameWriter {
        void write(InstanceToStreamManager message) throws IOException;

        /**
         * Writes a frame whose body, an encoded {@code InstanceToStreamManager}, is
         * {@code frame[bodyOffset, bodyOffset + bodyLength)}, with at least
         * {@link FrameChannel#LENGTH_BYTES} bytes of room before it in the same array, which
         * the writer may fill with the frame's length. The array is the writer's during the
         * call only: the sink reuses it for a later batch once the call returns. This default decodes the body and writes it as a message (writers that only
         * take messages); the connection's writer writes the bytes as they are.
         */
        default void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
            InstanceToStreamManager message;
            try {
                message = InstanceToStreamManager.parseFrom(
                        java.nio.ByteBuffer.wrap(frame, bodyOffset, bodyLength));
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("an encoded batch does not parse: " + e.getMessage(), e);
            }
            write(message);
        }

        /**
         * {@link #writeEncoded} only if it needs no waiting (the JNI bridge: the stream
         * manager's queue has room); true when written, false when nothing was (the caller
         * then queues the frame for the writer thread). Writers that cannot tell answer false.
         */
        default boolean tryWriteEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
            return false;
        }

        /** Releases the connection after a failed write; the reader of the connection then ends. */
        default void close() {
        }
    }

    /** Entries emitted before {@code ready} (in open/prepare) are held, but not without limit. */
    private static final int MAX_HELD_BEFORE_READY = 100_000;
    /**
     * Encoded bytes of one outgoing batch: it is sealed once it holds this much (so a batch
     * of big tuples is never a huge frame). Matches the stream manager's cap on the batches
     * its writers merge.
     */
    static final int MAX_BATCH_BYTES = 1 << 20;
    /**
     * Room at the start of a batch's array: the frame's length prefix, then the
     * {@code InstanceToStreamManager.tuples} tag and the batch's length (a varint of at most
     * 5 bytes). The batch's entries start right after it.
     */
    private static final int HEADER_ROOM = FrameChannel.LENGTH_BYTES
            + CodedOutputStream.computeTagSize(InstanceToStreamManager.TUPLES_FIELD_NUMBER) + 5;
    /** Arrays of written batches kept for later ones. */
    private static final int MAX_SPARE_ARRAYS = 4;
    /** The least array a new batch starts with. */
    private static final int FIRST_BATCH_ARRAY = 4096;
    /** The least time between two batches sealed because the executor ran out of work. */
    static final long IDLE_GAP_NANOS = 700_000;
    /**
     * With {@link #sealIdleFromExecutor(boolean)}: how long after the gap the writer thread leaves
     * the idle seal to the executor before doing it itself.
     */
    static final long EXECUTOR_SEAL_GRACE_NANOS = 250_000;

    /** A sealed frame waiting for the writer: a message, or a batch's encoded array. */
    private static final class Frame {
        /** A control message, or null for an encoded batch. */
        final InstanceToStreamManager message;
        /** An encoded batch: the frame's body is {@code encoded[offset, offset + length)}. */
        final byte[] encoded;
        final int offset;
        final int length;
        final long bytes;
        /** Tuples and acks in it (counted as dropped if it is). */
        final int entries;

        Frame(InstanceToStreamManager message, int entries) {
            this.message = message;
            this.encoded = null;
            this.offset = 0;
            this.length = message.getSerializedSize();
            this.bytes = (long) length + FrameChannel.LENGTH_BYTES;
            this.entries = entries;
        }

        Frame(byte[] encoded, int offset, int length, int entries) {
            this.message = null;
            this.encoded = encoded;
            this.offset = offset;
            this.length = length;
            this.bytes = (long) length + FrameChannel.LENGTH_BYTES;
            this.entries = entries;
        }

        void writeTo(FrameWriter w) throws IOException {
            if (message != null) {
                w.write(message);
            } else {
                w.writeEncoded(encoded, offset, length);
            }
        }
    }

    private final int batchSize;
    private final long flushNanos;
    /** Seal at {@link #executorIdle()} when the writer is idle ({@code egret.batch.flush.idle}). */
    private final boolean flushWhenIdle;
    private final long queueBytes;
    /** A batch is sealed at this many bytes: {@link #MAX_BATCH_BYTES}, or a quarter of the queue if less. */
    private final long batchBytes;
    private final boolean direct;
    private final ReentrantLock lock = new ReentrantLock();
    /** The writer thread waits here for a frame or the flush deadline. */
    private final Condition work = lock.newCondition();
    /** Threads wait here for room in the queue, or for it to drain. */
    private final Condition room = lock.newCondition();
    private volatile Runnable onWritable = () -> { };

    // Everything below is guarded by lock.
    private FrameWriter writer;
    /** Bumped by every connect: a failed write to an older writer is not this connection's failure. */
    private long generation;
    /** False until the first ready: entries are held. */
    private boolean ready;
    /** True between a lost connection and the next {@link #connect}: entries are discarded. */
    private boolean disconnected;
    private boolean closed;
    private long dropped;
    /** Copies whose values went by reference ({@link LocalValues}). */
    private long localRefs;
    /** The current batch's array: {@link #HEADER_ROOM}, then the encoded entries. */
    private byte[] batchArray;
    /** Encodes entries into {@link #batchArray}, after those already in it. */
    private CodedOutputStream batchOut;
    /** Arrays of written batches, for the next ones; at most {@link #MAX_SPARE_ARRAYS}. */
    private final ArrayDeque<byte[]> spareArrays = new ArrayDeque<>();
    private int tupleCount;
    private int ackCount;
    /** Encoded bytes of the current batch's entries (the {@code TupleBatch}'s size). */
    private long bufferedBytes;
    private long firstBufferedAt;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    /** Bytes of the queued frames and of the frame being written. */
    private long queuedBytes;
    /** The frame the writer thread is writing, or null. */
    private Frame writing;
    /** A spout's executor found the queue too full and waits for {@link #onWritable}. */
    private boolean wakeWhenWritable;
    /**
     * The executor ran out of work while the writer was busy or within the gap: the writer
     * seals once it has written what is queued and the gap has passed.
     */
    private boolean sealWhenWritten;
    /**
     * {@link #sealIdleFromExecutor(boolean)}: the executor comes back at {@link #idleSealDeadline()}
     * and seals; the writer thread does it only {@link #EXECUTOR_SEAL_GRACE_NANOS} later.
     */
    private boolean executorSealsIdle;
    /** With {@link #executorSealsIdle}: the writer seals if the executor is not back (see {@link #sealIdleFromExecutor}). */
    private boolean writerBacksUpIdleSeal;
    /** When the last batch was sealed (nanoTime); the idle flush keeps {@link #IDLE_GAP_NANOS} after it. */
    private long lastSealAt = System.nanoTime() - IDLE_GAP_NANOS;
    /**
     * The writer thread waits with no deadline (nothing buffered, no batch sealed for a flush
     * interval): the first entry of a batch must wake it to start the batch's flush timer.
     * Otherwise it wakes on its own within a flush interval and keeps the timer then.
     */
    private boolean writerWaitsUntimed;
    private Thread writerThread;

    /** Direct mode: frames are written by the calling thread (tests). */
    /** The batch size in force ({@code egret.batch.size}, from the assignment). */
    int batchSize() {
        return batchSize;
    }

    /** The flush timer in force ({@code egret.batch.flush.ms}, from the assignment), in ns. */
    long flushNanos() {
        return flushNanos;
    }

    /** Whether an idle executor seals its batch when the writer is idle ({@code egret.batch.flush.idle}). */
    boolean flushWhenIdle() {
        return flushWhenIdle;
    }

    /** The bound of the sealed frames ({@code egret.instance.outbound.bytes}, from the assignment). */
    long queueBytes() {
        return queueBytes;
    }

    OutboundSink(FrameWriter writer, int batchSize, long flushNanos) {
        this(writer, batchSize, flushNanos, Long.MAX_VALUE, false, true);
    }

    /** With a writer thread and a queue of sealed frames bounded to {@code queueBytes}; timer only. */
    OutboundSink(FrameWriter writer, int batchSize, long flushNanos, long queueBytes) {
        this(writer, batchSize, flushNanos, queueBytes, false, false);
    }

    /** With a writer thread; {@code flushWhenIdle}: see {@link #executorIdle()}. */
    OutboundSink(FrameWriter writer, int batchSize, long flushNanos, long queueBytes, boolean flushWhenIdle) {
        this(writer, batchSize, flushNanos, queueBytes, flushWhenIdle, false);
    }

    private OutboundSink(FrameWriter writer, int batchSize, long flushNanos, long queueBytes,
            boolean flushWhenIdle, boolean direct) {
        this.writer = writer;
        this.batchSize = Math.max(1, batchSize);
        this.flushNanos = Math.max(0, flushNanos);
        this.flushWhenIdle = flushWhenIdle;
        this.queueBytes = Math.max(1, queueBytes);
        this.batchBytes = Math.max(1, Math.min(MAX_BATCH_BYTES, this.queueBytes / 4));
        this.direct = direct;
        newBatch(FIRST_BATCH_ARRAY);
    }

    /**
     * Under the lock (or in the constructor): an empty batch in an array of at least
     * {@code capacity} bytes, a written batch's when one is large enough.
     */
    private void newBatch(int capacity) {
        int least = Math.max(capacity, HEADER_ROOM + 64);
        byte[] spare = spareArrays.peekLast();
        batchArray = spare != null && spare.length >= least ? spareArrays.pollLast() : new byte[least];
        batchOut = CodedOutputStream.newInstance(batchArray, HEADER_ROOM, batchArray.length - HEADER_ROOM);
        tupleCount = 0;
        ackCount = 0;
        bufferedBytes = 0;
    }

    /** Under the lock: encodes one entry as field {@code field} of the current batch. */
    private void append(int field, MessageLite entry) {
        int need;
        try {
            need = beginEntry(field, entry.getSerializedSize());
            entry.writeTo(batchOut);
        } catch (IOException e) {
            // beginEntry makes room first: an array encoder has nothing else to fail on.
            throw new UncheckedIOException("encoding an outgoing entry", e);
        }
        bufferedBytes += need;
    }

    /**
     * Under the lock: makes room for an entry of {@code size} encoded bytes as field
     * {@code field} of the batch, and writes its tag and length; the entry's fields follow.
     * Returns the bytes the entry takes in the batch, with its tag and length.
     */
    private int beginEntry(int field, int size) throws IOException {
        int need = CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
        ensureRoom(need);
        batchOut.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        batchOut.writeUInt32NoTag(size);
        return need;
    }

    /** Under the lock: grows the batch's array, if need be, so {@code need} more bytes fit. */
    private void ensureRoom(int need) {
        if (batchOut.spaceLeft() >= need) {
            return;
        }
        int used = HEADER_ROOM + (int) bufferedBytes;
        long wanted = Math.max(2L * batchArray.length, (long) used + need);
        if (wanted > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("an outgoing batch would exceed 2 GiB");
        }
        batchArray = Arrays.copyOf(batchArray, (int) wanted);
        batchOut = CodedOutputStream.newInstance(batchArray, used, batchArray.length - used);
    }

    private void appendTuple(TupleData tuple) {
        append(TupleBatch.TUPLES_FIELD_NUMBER, tuple);
        tupleCount++;
    }

    private void appendAck(AckEntry ack) {
        append(TupleBatch.ACKS_FIELD_NUMBER, ack);
        ackCount++;
    }

    /** Called (on the writer thread) when the queue drains below half after {@link #writable()} said no. */
    void onWritable(Runnable wake) {
        this.onWritable = wake;
    }

    void add(TupleData tuple) {
        lock.lock();
        try {
            if (disconnected) {
                dropped++;
                return;
            }
            boolean first = isEmpty();
            appendTuple(tuple);
            afterAdd(first);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends acks, then the copies of one emit, atomically (as {@link #add(List, List)}):
     * copy {@code i} goes to {@code dests[i]} with edge id {@code edges[i]} (0, or
     * {@code edges} null, for none), and every copy has the same source task, stream, values
     * and roots. Each copy is encoded as a {@code TupleData} straight into the batch, with the
     * bytes {@code TupleData.writeTo} would give, without building one; what the copies
     * share is measured once.
     *
     * <p>Where {@code rings[i]} is not null, copy {@code i} is passed by reference
     * ({@link LocalValues}): it carries the number its ring holds {@code localValues} under
     * instead of their bytes. The numbers are taken here, under the lock, so they leave in the
     * frames' order. A copy whose ring is full is serialized with {@code codec} (once for all
     * such copies) when {@code values} is null.
     */
    void addCopies(List<AckEntry> newAcks, int srcTask, ByteString stream, ByteString values,
                   List<RootId> roots, int[] dests, long[] edges, int count, List<Object> localValues,
                   LocalValues.Ring[] rings, TupleValuesCodec codec) {
        if (newAcks.isEmpty() && count == 0) {
            return;
        }
        lock.lock();
        try {
            if (disconnected) {
                dropped += newAcks.size() + count;
                return;
            }
            boolean first = isEmpty();
            // Index loops: these lists are protobuf's unmodifiable views, whose iterators
            // would be two objects per emit.
            for (int a = 0, n = newAcks.size(); a < n; a++) {
                appendAck(newAcks.get(a));
            }
            int shared = (srcTask != 0 ? CodedOutputStream.computeInt32Size(TupleData.SRC_TASK_FIELD_NUMBER, srcTask) : 0)
                    + (stream.isEmpty() ? 0 : CodedOutputStream.computeBytesSize(TupleData.STREAM_FIELD_NUMBER, stream));
            int rootCount = roots.size();
            for (int r = 0; r < rootCount; r++) {
                shared += CodedOutputStream.computeMessageSize(TupleData.ROOTS_FIELD_NUMBER, roots.get(r));
            }
            int valuesSize = values == null ? -1 : valuesFieldSize(values);
            for (int i = 0; i < count; i++) {
                int dest = dests[i];
                long edge = edges == null ? 0 : edges[i];
                long ref = rings != null && rings[i] != null ? rings[i].put(localValues) : 0;
                if (ref == 0 && values == null) {
                    // Serialized after all: a copy to another JVM, or its pair's ring is full.
                    values = UnsafeByteOperations.unsafeWrap(codec.serialize(localValues));
                    valuesSize = valuesFieldSize(values);
                }
                int size = shared + (ref != 0 ? CodedOutputStream.computeUInt64Size(TupleData.LOCAL_REF_FIELD_NUMBER, ref)
                        : valuesSize)
                        + (dest != 0 ? CodedOutputStream.computeInt32Size(TupleData.DEST_TASK_FIELD_NUMBER, dest) : 0)
                        + (edge != 0 ? CodedOutputStream.computeFixed64Size(TupleData.EDGE_ID_FIELD_NUMBER, edge) : 0);
                int need;
                try {
                    need = beginEntry(TupleBatch.TUPLES_FIELD_NUMBER, size);
                    // Fields in number order, defaults left out: as TupleData.writeTo writes them.
                    if (dest != 0) {
                        batchOut.writeInt32(TupleData.DEST_TASK_FIELD_NUMBER, dest);
                    }
                    if (srcTask != 0) {
                        batchOut.writeInt32(TupleData.SRC_TASK_FIELD_NUMBER, srcTask);
                    }
                    if (!stream.isEmpty()) {
                        batchOut.writeBytes(TupleData.STREAM_FIELD_NUMBER, stream);
                    }
                    if (ref == 0 && !values.isEmpty()) {
                        batchOut.writeBytes(TupleData.VALUES_FIELD_NUMBER, values);
                    }
                    for (int r = 0; r < rootCount; r++) {
                        batchOut.writeMessage(TupleData.ROOTS_FIELD_NUMBER, roots.get(r));
                    }
                    if (edge != 0) {
                        batchOut.writeFixed64(TupleData.EDGE_ID_FIELD_NUMBER, edge);
                    }
                    if (ref != 0) {
                        batchOut.writeUInt64(TupleData.LOCAL_REF_FIELD_NUMBER, ref);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("encoding an outgoing tuple", e);
                }
                bufferedBytes += need;
                tupleCount++;
                if (ref != 0) {
                    localRefs++;
                }
            }
            afterAdd(first);
        } finally {
            lock.unlock();
        }
    }

    private static int valuesFieldSize(ByteString values) {
        return values.isEmpty() ? 0 : CodedOutputStream.computeBytesSize(TupleData.VALUES_FIELD_NUMBER, values);
    }

    /** Copies sent with their values passed by reference so far. */
    long localRefs() {
        lock.lock();
        try {
            return localRefs;
        } finally {
            lock.unlock();
        }
    }

    void addAck(AckEntry ack) {
        add(List.of(ack), List.of());
    }

    /**
     * Appends one ack entry of {@code kind} with {@code xor} per root, atomically, each encoded
     * straight into the batch with the bytes {@code AckEntry.writeTo} would give, without
     * building one (a bolt's ack or fail: once per input tuple).
     */
    void addAcks(dev.egret.proto.AckKind kind, List<RootId> roots, long xor) {
        int n = roots.size();
        if (n == 0) {
            return;
        }
        lock.lock();
        try {
            if (disconnected) {
                dropped += n;
                return;
            }
            boolean first = isEmpty();
            int kindNumber = kind.getNumber();
            for (int i = 0; i < n; i++) {
                RootId root = roots.get(i);
                int size = (kindNumber != 0 ? CodedOutputStream.computeEnumSize(AckEntry.KIND_FIELD_NUMBER, kindNumber) : 0)
                        + CodedOutputStream.computeMessageSize(AckEntry.ROOT_FIELD_NUMBER, root)
                        + (xor != 0 ? CodedOutputStream.computeFixed64Size(AckEntry.XOR_FIELD_NUMBER, xor) : 0);
                int need;
                try {
                    need = beginEntry(TupleBatch.ACKS_FIELD_NUMBER, size);
                    // Fields in number order, defaults left out: as AckEntry.writeTo writes them.
                    if (kindNumber != 0) {
                        batchOut.writeEnum(AckEntry.KIND_FIELD_NUMBER, kindNumber);
                    }
                    batchOut.writeMessage(AckEntry.ROOT_FIELD_NUMBER, root);
                    if (xor != 0) {
                        batchOut.writeFixed64(AckEntry.XOR_FIELD_NUMBER, xor);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("encoding an outgoing ack", e);
                }
                bufferedBytes += need;
                ackCount++;
            }
            afterAdd(first);
        } finally {
            lock.unlock();
        }
    }

    /** Appends acks, then tuples, atomically: a batch is never sealed between them. */
    void add(List<AckEntry> newAcks, List<TupleData> newTuples) {
        if (newAcks.isEmpty() && newTuples.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            if (disconnected) {
                dropped += newAcks.size() + newTuples.size();
                return;
            }
            boolean first = isEmpty();
            for (AckEntry a : newAcks) {
                appendAck(a);
            }
            for (TupleData t : newTuples) {
                appendTuple(t);
            }
            afterAdd(first);
        } finally {
            lock.unlock();
        }
    }

    private boolean isEmpty() {
        return tupleCount == 0 && ackCount == 0;
    }

    private int size() {
        return tupleCount + ackCount;
    }

    /** Under the lock. */
    private void afterAdd(boolean first) {
        if (first) {
            firstBufferedAt = System.nanoTime();
        }
        if (!ready) {
            if (size() > MAX_HELD_BEFORE_READY) {
                throw new IllegalStateException("More than " + MAX_HELD_BEFORE_READY
                        + " tuples and acks emitted before every task of the instance was opened/prepared");
            }
            return;
        }
        if (size() >= batchSize || bufferedBytes >= batchBytes) {
            seal();
            awaitRoom();
        } else if (first && writerWaitsUntimed) {
            // The writer thread now has a flush deadline to keep.
            work.signal();
        }
    }

    /** Under the lock: waits while the queue is over its bound and could still drain. */
    private void awaitRoom() {
        boolean interrupted = false;
        while (queuedBytes > queueBytes && !disconnected && !closed) {
            try {
                room.await();
            } catch (InterruptedException e) {
                // The entries are queued already; let the caller see its interrupt afterwards.
                interrupted = true;
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Whether a spout may call {@code nextTuple}: the queue and the current batch hold less
     * than half the queue's bound (or the connection is gone, and entries are discarded
     * anyway). When not, {@code onWritable} runs once they do. The other half is room for
     * what one {@code nextTuple} emits, so a spout does not block in an emit.
     */
    boolean writable() {
        lock.lock();
        try {
            if (disconnected || closed || (queuedBytes + bufferedBytes) * 2 < queueBytes) {
                return true;
            }
            wakeWhenWritable = true;
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The executor has run out of work. With {@code egret.batch.flush.idle}, seals the
     * current batch if the writer has nothing queued or being written and the last batch
     * was sealed at least {@link #IDLE_GAP_NANOS} ago; true when it did. Otherwise the writer
     * seals it once both hold (or on the timer); the batch goes on filling until then.
     */
    boolean executorIdle() {
        if (!flushWhenIdle) {
            return false;
        }
        lock.lock();
        try {
            if (isEmpty() || !ready || disconnected) {
                return false;
            }
            if (!queue.isEmpty() || writing != null || System.nanoTime() - lastSealAt < IDLE_GAP_NANOS) {
                if (!sealWhenWritten && !direct) {
                    sealWhenWritten = true;
                    if (!executorSealsIdle || writerBacksUpIdleSeal) {
                        // The writer may be waiting for a later deadline (the timer's).
                        work.signal();
                    }
                    // Else the executor comes back at the gap's end and seals; if it does
                    // not, the writer does when it next wakes (the flush timer at the latest).
                }
                return false;
            }
            seal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A spout's executor seals its own idle-flushed batches: it waits for inbound messages
     * no longer than {@link #idleSealDeadline()}, calls {@code nextTuple} (which emits the
     * tuples due by then into the batch) and seals at {@link #executorIdle()}. Otherwise a
     * spout woken by acks just after a seal would emit into a batch that waits a whole gap,
     * while the tuples that fall due meanwhile wait for its next wake-up.
     */
    void sealIdleFromExecutor(boolean writerBacksUp) {
        lock.lock();
        try {
            executorSealsIdle = true;
            writerBacksUpIdleSeal = writerBacksUp;
        } finally {
            lock.unlock();
        }
    }

    /**
     * With {@link #sealIdleFromExecutor(boolean)}: when a batch left for later by
     * {@link #executorIdle()} may be sealed by the executor (nanoTime), the end of the gap
     * after the last seal; {@code Long.MAX_VALUE} when none waits, or when the writer seals.
     */
    long idleSealDeadline() {
        lock.lock();
        try {
            return executorSealsIdle && sealWhenWritten && !isEmpty() ? lastSealAt + IDLE_GAP_NANOS : Long.MAX_VALUE;
        } finally {
            lock.unlock();
        }
    }

    /** Direct mode: flushes when the oldest buffered entry has waited the flush interval. */
    void flushIfDue(long nowNanos) {
        lock.lock();
        try {
            if (!isEmpty() && nowNanos - firstBufferedAt >= flushNanos) {
                seal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** When the buffered entries must go out (nanoTime), or {@code Long.MAX_VALUE} when none are buffered. */
    long flushDeadline() {
        lock.lock();
        try {
            return isEmpty() ? Long.MAX_VALUE : firstBufferedAt + flushNanos;
        } finally {
            lock.unlock();
        }
    }

    /** Seals the current batch now (Storm's collector {@code flush}); it is written in the background. */
    void flush() {
        lock.lock();
        try {
            seal();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: moves the buffered entries, as one frame, to the queue. */
    private void seal() {
        if (!ready || disconnected || isEmpty()) {
            return;
        }
        sealWhenWritten = false;
        lastSealAt = System.nanoTime();
        int entries = size();
        int batchLength = (int) bufferedBytes;
        int header = CodedOutputStream.computeTagSize(InstanceToStreamManager.TUPLES_FIELD_NUMBER)
                + CodedOutputStream.computeUInt32SizeNoTag(batchLength);
        int start = HEADER_ROOM - header;
        CodedOutputStream h = CodedOutputStream.newInstance(batchArray, start, header);
        try {
            h.writeTag(InstanceToStreamManager.TUPLES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            h.writeUInt32NoTag(batchLength);
            h.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding an outgoing batch's header", e);
        }
        byte[] sealed = batchArray;
        int used = HEADER_ROOM + batchLength;
        // The next batch starts as large as this one ended (capped), so a loaded sink does
        // not grow every batch again; an idle one goes back to a small array.
        newBatch((int) Math.max(FIRST_BATCH_ARRAY, Math.min(used + used / 8, batchBytes + HEADER_ROOM + 1024)));
        enqueue(new Frame(sealed, start, header + batchLength, entries));
    }

    /**
     * Under the lock: keeps a written frame's array for a later batch, unless enough are kept
     * or it is larger than a batch normally grows (one big tuple's).
     */
    private void recycle(Frame f) {
        byte[] a = f.encoded;
        if (a != null && spareArrays.size() < MAX_SPARE_ARRAYS && a.length <= batchBytes + HEADER_ROOM + 1024) {
            spareArrays.addLast(a);
        }
    }

    /** Under the lock. */
    private void enqueue(Frame f) {
        if (disconnected) {
            dropped += f.entries;
            return;
        }
        if (!direct && writeNowIfIdle(f)) {
            return;
        }
        queue.addLast(f);
        queuedBytes += f.bytes;
        if (direct) {
            writeQueuedInline();
        } else {
            startWriterIfNeeded();
            work.signal();
        }
    }

    /** Sends {@code ready}, then whatever was emitted during open/prepare. */
    void sendReady() {
        lock.lock();
        try {
            enqueue(new Frame(InstanceToStreamManager.newBuilder()
                    .setReady(dev.egret.proto.Empty.getDefaultInstance()).build(), 0));
            if (disconnected) {
                return;
            }
            ready = true;
            seal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues built-in statistics (after the buffered tuples, so the counts never run ahead of
     * the tuples they describe). False when not connected or not ready: the caller keeps
     * them. A report queued but then lost with the connection is lost (as its tuples are).
     */
    boolean sendStats(dev.egret.proto.StatsReport report) {
        lock.lock();
        try {
            if (disconnected || !ready) {
                return false;
            }
            seal();
            enqueue(new Frame(InstanceToStreamManager.newBuilder().setStats(report).build(), 0));
            return !disconnected;
        } finally {
            lock.unlock();
        }
    }

    /** Queues the JVM's heap and GC figures; false when not connected or not ready (they are not kept). */
    boolean sendJvm(dev.egret.proto.JvmStats jvm) {
        lock.lock();
        try {
            if (disconnected || !ready) {
                return false;
            }
            enqueue(new Frame(InstanceToStreamManager.newBuilder().setJvm(jvm).build(), 0));
            return !disconnected;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues a state request (after the buffered tuples and acks, so the state never runs
     * ahead of what the task emitted and acked before it). False when not connected.
     */
    boolean sendState(InstanceToStreamManager message) {
        lock.lock();
        try {
            if (disconnected) {
                return false;
            }
            seal();
            enqueue(new Frame(message, 0));
            return !disconnected;
        } finally {
            lock.unlock();
        }
    }

    void sendError(int taskId, String message, boolean fatal) {
        lock.lock();
        try {
            if (disconnected) {
                LOG.warn("Not forwarding the error of task {} to the stream manager: not connected", taskId);
                return;
            }
            seal();
            enqueue(new Frame(InstanceToStreamManager.newBuilder().setError(ReportedError.newBuilder()
                    .setTaskId(taskId).setMessage(message).setFatal(fatal)).build(), 0));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeoutNanos} until everything queued has been written (or the
     * connection is gone); true when it was. Before exiting on a fatal error, so the error
     * reaches the stream manager.
     */
    boolean awaitWritten(long timeoutNanos) throws InterruptedException {
        long left = timeoutNanos;
        lock.lock();
        try {
            while ((!queue.isEmpty() || writing != null) && !disconnected && !closed) {
                if (left <= 0) {
                    return false;
                }
                left = room.awaitNanos(left);
            }
            return queue.isEmpty() && writing == null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The connection is gone (seen by the reader or by a failed write): drops the buffered
     * and queued entries and discards new ones until {@link #connect}. Returns how many
     * entries were dropped since the last connect, buffered ones included.
     */
    long disconnect() {
        lock.lock();
        try {
            disconnectLocked();
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    private void disconnectLocked() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        dropped += size();
        newBatch(FIRST_BATCH_ARRAY);
        for (Frame f : queue) {
            dropped += f.entries;
            queuedBytes -= f.bytes;
        }
        queue.clear();
        // Blocked emitters go on (their entries are discarded from now on).
        room.signalAll();
    }

    /** A new connection: sends {@code ready} on it and resumes; entries dropped meanwhile stay lost. */
    void connect(FrameWriter newWriter) {
        lock.lock();
        try {
            writer = newWriter;
            generation++;
            disconnected = false;
            dropped = 0;
            sendReady();
        } finally {
            lock.unlock();
        }
    }

    boolean isDisconnected() {
        lock.lock();
        try {
            return disconnected;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes queued for the writer, the frame being written included. */
    long queuedBytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the writer thread (the instance exits). A write in progress ends when the caller
     * closes the connection; the thread is a daemon either way.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            work.signalAll();
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: writes a sealed batch on the sealing thread when nothing is queued or
     * being written (so frames keep their order) and the writer can take it without waiting
     * (the JNI bridge with room in the stream manager's queue). The writer thread is then
     * not woken for it: one thread hand-off less per batch. False when the frame must be
     * queued for the writer thread as usual (a socket, a full queue, a control message).
     */
    private boolean writeNowIfIdle(Frame f) {
        if (f.encoded == null || !queue.isEmpty() || writing != null) {
            return false;
        }
        FrameWriter w = writer;
        try {
            if (!w.tryWriteEncoded(f.encoded, f.offset, f.length)) {
                return false;
            }
        } catch (IOException | RuntimeException e) {
            failed(f, e, w);
            return true;
        }
        recycle(f);
        return true;
    }

    /** Direct mode, under the lock: writes every queued frame on this thread. */
    private void writeQueuedInline() {
        while (!queue.isEmpty() && !disconnected) {
            Frame f = queue.pollFirst();
            queuedBytes -= f.bytes;
            try {
                f.writeTo(writer);
                recycle(f);
            } catch (IOException | RuntimeException e) {
                failed(f, e, writer);
            }
        }
    }

    /** Under the lock: a write of {@code f} to the current writer failed. */
    private void failed(Frame f, Exception e, FrameWriter w) {
        LOG.warn("Writing to the stream manager failed: {}; dropping the outgoing batches", e.getMessage());
        dropped += f.entries;
        disconnectLocked();
        w.close();
    }

    private void startWriterIfNeeded() {
        if (writerThread != null || closed) {
            return;
        }
        writerThread = new Thread(this::writeLoop, "sm-writer");
        writerThread.setDaemon(true);
        writerThread.start();
    }

    /** The writer thread: seals batches on their flush deadline and writes queued frames in order. */
    private void writeLoop() {
        while (true) {
            Frame f;
            FrameWriter w;
            long gen;
            lock.lock();
            try {
                while (true) {
                    if (closed) {
                        return;
                    }
                    long now = System.nanoTime();
                    boolean timed = ready && !disconnected && !isEmpty();
                    boolean idleDue = sealWhenWritten && queue.isEmpty();
                    long idleGap = executorSealsIdle ? IDLE_GAP_NANOS + EXECUTOR_SEAL_GRACE_NANOS : IDLE_GAP_NANOS;
                    if (timed && (now - firstBufferedAt >= flushNanos
                            || (idleDue && now - lastSealAt >= idleGap))) {
                        seal();
                        timed = false;
                    }
                    if (!queue.isEmpty() && !disconnected) {
                        f = queue.pollFirst();
                        w = writer;
                        gen = generation;
                        writing = f;
                        break;
                    }
                    try {
                        if (timed) {
                            long until = firstBufferedAt + flushNanos - now;
                            if (idleDue) {
                                until = Math.min(until, lastSealAt + idleGap - now);
                            }
                            work.awaitNanos(Math.max(1, until));
                        } else if (flushNanos > 0 && now - lastSealAt < flushNanos) {
                            // Batches are flowing: wake within a flush interval to keep the
                            // next batch's timer, instead of being woken by its first entry.
                            work.awaitNanos(flushNanos);
                        } else {
                            writerWaitsUntimed = true;
                            try {
                                work.await();
                            } finally {
                                writerWaitsUntimed = false;
                            }
                        }
                    } catch (InterruptedException e) {
                        // Not interrupted by the sink itself (an interrupt would close the
                        // socket under a write); whoever did wants it gone.
                        return;
                    }
                }
            } finally {
                lock.unlock();
            }
            Exception failure = null;
            try {
                f.writeTo(w);
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
            Runnable wake = null;
            lock.lock();
            try {
                writing = null;
                queuedBytes -= f.bytes;
                if (failure == null) {
                    recycle(f);
                }
                if (failure != null && gen == generation && !disconnected) {
                    failed(f, failure, w);
                } else if (failure != null) {
                    LOG.debug("A write to a replaced stream manager connection failed: {}", failure.getMessage());
                }
                if (wakeWhenWritable && (queuedBytes + bufferedBytes) * 2 < queueBytes) {
                    wakeWhenWritable = false;
                    wake = onWritable;
                }
                room.signalAll();
            } finally {
                lock.unlock();
            }
            if (wake != null) {
                wake.run();
            }
        }
    }
}

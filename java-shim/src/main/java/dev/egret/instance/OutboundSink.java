package dev.egret.instance;

import dev.egret.proto.AckEntry;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.ReportedError;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outgoing batch of an instance: tuples and ledger updates ({@link AckEntry}) accumulate
 * until {@code batchSize} entries (tuples plus acks) are buffered or {@code flushNanos} have
 * passed since the first one, then go out as one {@code InstanceToStreamManager{tuples}}
 * frame.
 *
 * <p>Ordering: the stream manager applies a batch's acks before routing its tuples. Entries
 * handed over together by {@link #add(List, List)} are appended under one lock, acks first,
 * and a size-triggered flush only happens after both are in; so an INIT always travels in
 * the same batch as (or an earlier batch than) the first tuple of its tree.
 *
 * <p>Connection: the sink writes to the current {@link FrameWriter}. When a write fails the
 * sink drops the buffered entries, closes that writer (which ends the reader thread, and so
 * tells the executor) and discards everything handed to it until {@link #connect} gives it
 * a new writer. Callers, including user threads, never see the failure: the tuples are lost
 * as on a crash, and acking replays them.
 *
 * <p>Thread-safety: every method synchronizes on this sink, so user threads may emit
 * concurrently with the executor thread. Writes block while the stream manager does not
 * read (its backpressure), which in turn blocks the emitting thread: memory stays bounded
 * by one batch.
 */
final class OutboundSink {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    /** Where frames go; the real one is a {@code FrameChannel}. */
    interface FrameWriter {
        void write(InstanceToStreamManager message) throws IOException;

        /** Releases the connection after a failed write; the reader of the connection then ends. */
        default void close() {
        }
    }

    /** Entries emitted before {@code ready} (in open/prepare) are held, but not without limit. */
    private static final int MAX_HELD_BEFORE_READY = 100_000;

    private final int batchSize;
    private final long flushNanos;
    private volatile Runnable onFirstBuffered = () -> { };
    private volatile Thread executorThread;
    private FrameWriter writer;
    /** False until the first ready: entries are held. */
    private boolean ready;
    /** True between a lost connection and the next {@link #connect}: entries are discarded. */
    private boolean disconnected;
    private long dropped;
    private List<TupleData> tuples;
    private List<AckEntry> acks;
    private long firstBufferedAt;

    OutboundSink(FrameWriter writer, int batchSize, long flushNanos) {
        this.writer = writer;
        this.batchSize = Math.max(1, batchSize);
        this.flushNanos = Math.max(0, flushNanos);
        this.tuples = new ArrayList<>(this.batchSize);
        this.acks = new ArrayList<>();
    }

    /**
     * Wakes the executor when a thread other than the executor's buffers the first entry of
     * a batch, so the time-based flush is not delayed by the executor's idle wait.
     */
    void onFirstBufferedByOtherThread(Thread executor, Runnable wake) {
        this.executorThread = executor;
        this.onFirstBuffered = wake;
    }

    synchronized void add(TupleData tuple) {
        if (disconnected) {
            dropped++;
            return;
        }
        boolean first = isEmpty();
        tuples.add(tuple);
        afterAdd(first);
    }

    synchronized void addAck(AckEntry ack) {
        if (disconnected) {
            dropped++;
            return;
        }
        boolean first = isEmpty();
        acks.add(ack);
        afterAdd(first);
    }

    /** Appends acks, then tuples, atomically: a size flush never separates them in the wrong order. */
    synchronized void add(List<AckEntry> newAcks, List<TupleData> newTuples) {
        if (newAcks.isEmpty() && newTuples.isEmpty()) {
            return;
        }
        if (disconnected) {
            dropped += newAcks.size() + newTuples.size();
            return;
        }
        boolean first = isEmpty();
        acks.addAll(newAcks);
        tuples.addAll(newTuples);
        afterAdd(first);
    }

    private boolean isEmpty() {
        return tuples.isEmpty() && acks.isEmpty();
    }

    private int size() {
        return tuples.size() + acks.size();
    }

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
        if (size() >= batchSize) {
            flush();
        } else if (first && Thread.currentThread() != executorThread) {
            onFirstBuffered.run();
        }
    }

    /** Flushes when the oldest buffered entry has waited the flush interval. */
    synchronized void flushIfDue(long nowNanos) {
        if (!isEmpty() && nowNanos - firstBufferedAt >= flushNanos) {
            flush();
        }
    }

    /** When the buffered entries must go out (nanoTime), or {@code Long.MAX_VALUE} when none are buffered. */
    synchronized long flushDeadline() {
        return isEmpty() ? Long.MAX_VALUE : firstBufferedAt + flushNanos;
    }

    synchronized void flush() {
        if (!ready || disconnected || isEmpty()) {
            return;
        }
        TupleBatch b = TupleBatch.newBuilder().addAllAcks(acks).addAllTuples(tuples).build();
        int entries = size();
        tuples = new ArrayList<>(batchSize);
        acks = new ArrayList<>();
        if (!send(InstanceToStreamManager.newBuilder().setTuples(b).build())) {
            dropped += entries;
        }
    }

    /** Sends {@code ready}, then whatever was emitted during open/prepare. */
    synchronized void sendReady() {
        send(InstanceToStreamManager.newBuilder()
                .setReady(dev.egret.proto.Empty.getDefaultInstance()).build());
        if (disconnected) {
            return;
        }
        ready = true;
        flush();
    }

    /**
     * Sends built-in statistics (after the buffered tuples, so the counts never run ahead of
     * the tuples they describe). False when not connected or not ready: the caller keeps them.
     */
    synchronized boolean sendStats(dev.egret.proto.StatsReport report) {
        if (disconnected || !ready) {
            return false;
        }
        flush();
        return send(InstanceToStreamManager.newBuilder().setStats(report).build());
    }

    synchronized void sendError(int taskId, String message, boolean fatal) {
        if (disconnected) {
            LOG.warn("Not forwarding the error of task {} to the stream manager: not connected", taskId);
            return;
        }
        if (ready) {
            flush();
        }
        send(InstanceToStreamManager.newBuilder().setError(ReportedError.newBuilder()
                .setTaskId(taskId).setMessage(message).setFatal(fatal)).build());
    }

    /**
     * The connection is gone (seen by the reader or by a failed write): drops the buffered
     * entries and discards new ones until {@link #connect}. Returns how many entries were
     * dropped since the last connect, buffered ones included.
     */
    synchronized long disconnect() {
        if (!disconnected) {
            disconnected = true;
            dropped += size();
            tuples = new ArrayList<>(batchSize);
            acks = new ArrayList<>();
        }
        return dropped;
    }

    /** A new connection: sends {@code ready} on it and resumes; entries dropped meanwhile stay lost. */
    synchronized void connect(FrameWriter newWriter) {
        writer = newWriter;
        disconnected = false;
        dropped = 0;
        sendReady();
    }

    synchronized boolean isDisconnected() {
        return disconnected;
    }

    /** False when the message could not be written (the sink is then disconnected). */
    private boolean send(InstanceToStreamManager m) {
        if (disconnected) {
            return false;
        }
        try {
            writer.write(m);
            return true;
        } catch (IOException e) {
            LOG.warn("Writing to the stream manager failed: {}; dropping the outgoing batch", e.getMessage());
            disconnect();
            writer.close();
            return false;
        }
    }
}

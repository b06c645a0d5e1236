package dev.egret.instance;

import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.ReportedError;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The outgoing batch of an instance: tuples accumulate until {@code batchSize} of them
 * are buffered or {@code flushNanos} have passed since the first one, then go out as one
 * {@code InstanceToStreamManager{tuples}} frame.
 *
 * <p>Thread-safety: every method synchronizes on this sink, so user threads may emit
 * concurrently with the executor thread. Writes block while the stream manager does not
 * read (its backpressure), which in turn blocks the emitting thread: nothing is dropped
 * and memory stays bounded by one batch.
 */
final class OutboundSink {
    /** Where frames go; the real one is a {@code FrameChannel}. */
    interface FrameWriter {
        void write(InstanceToStreamManager message) throws IOException;
    }

    /** The connection to the stream manager failed while writing. */
    static final class ConnectionLostException extends RuntimeException {
        ConnectionLostException(IOException cause) {
            super("Connection to the stream manager lost: " + cause.getMessage(), cause);
        }
    }

    /** Tuples emitted before {@code ready} (in open/prepare) are held, but not without limit. */
    private static final int MAX_HELD_BEFORE_READY = 100_000;

    private final FrameWriter writer;
    private final int batchSize;
    private volatile Runnable onFirstBuffered = () -> { };
    private volatile Thread executorThread;
    private boolean ready;
    private final long flushNanos;
    private List<TupleData> batch;
    private long firstBufferedAt;

    OutboundSink(FrameWriter writer, int batchSize, long flushNanos) {
        this.writer = writer;
        this.batchSize = Math.max(1, batchSize);
        this.flushNanos = Math.max(0, flushNanos);
        this.batch = new ArrayList<>(this.batchSize);
    }

    /**
     * Wakes the executor when a thread other than the executor's buffers the first tuple of
     * a batch, so the time-based flush is not delayed by the executor's idle wait.
     */
    void onFirstBufferedByOtherThread(Thread executor, Runnable wake) {
        this.executorThread = executor;
        this.onFirstBuffered = wake;
    }

    synchronized void add(TupleData tuple) {
        boolean first = batch.isEmpty();
        if (first) {
            firstBufferedAt = System.nanoTime();
        }
        batch.add(tuple);
        if (!ready) {
            if (batch.size() > MAX_HELD_BEFORE_READY) {
                throw new IllegalStateException("More than " + MAX_HELD_BEFORE_READY
                        + " tuples emitted before every task of the instance was opened/prepared");
            }
            return;
        }
        if (batch.size() >= batchSize) {
            flush();
        } else if (first && Thread.currentThread() != executorThread) {
            onFirstBuffered.run();
        }
    }

    /** Flushes when the oldest buffered tuple has waited the flush interval. */
    synchronized void flushIfDue(long nowNanos) {
        if (!batch.isEmpty() && nowNanos - firstBufferedAt >= flushNanos) {
            flush();
        }
    }

    /** When the buffered tuples must go out (nanoTime), or {@code Long.MAX_VALUE} when none are buffered. */
    synchronized long flushDeadline() {
        return batch.isEmpty() ? Long.MAX_VALUE : firstBufferedAt + flushNanos;
    }

    synchronized void flush() {
        if (!ready || batch.isEmpty()) {
            return;
        }
        TupleBatch b = TupleBatch.newBuilder().addAllTuples(batch).build();
        batch = new ArrayList<>(batchSize);
        send(InstanceToStreamManager.newBuilder().setTuples(b).build());
    }

    /** Sends {@code ready}, then whatever was emitted during open/prepare. */
    synchronized void sendReady() {
        send(InstanceToStreamManager.newBuilder()
                .setReady(dev.egret.proto.Empty.getDefaultInstance()).build());
        ready = true;
        flush();
    }

    synchronized void sendError(int taskId, String message, boolean fatal) {
        if (ready) {
            flush();
        }
        send(InstanceToStreamManager.newBuilder().setError(ReportedError.newBuilder()
                .setTaskId(taskId).setMessage(message).setFatal(fatal)).build());
    }

    private void send(InstanceToStreamManager m) {
        try {
            writer.write(m);
        } catch (IOException e) {
            throw new ConnectionLostException(e);
        }
    }
}

package dev.egret.instance;

import java.util.ArrayDeque;
import java.util.List;
import org.apache.storm.spout.ISpoutOutputCollector;

/**
 * A spout task's collector. Without acking (Storm's topology.acker.executors=0), an emit
 * with a message id is acked right away: the id is queued here and the executor thread
 * calls the spout's {@code ack} once the current {@code nextTuple} has returned.
 */
final class SpoutCollector implements ISpoutOutputCollector {
    /** More pending acks than this means nextTuple emits without ever returning; cap memory anyway. */
    private static final int MAX_PENDING_ACKS = 1 << 20;

    private final TaskEmitter emitter;
    private final ErrorSink errors;
    private final OutboundSink sink;
    private final String component;
    private final ArrayDeque<Object> pendingAcks = new ArrayDeque<>();

    SpoutCollector(TaskEmitter emitter, ErrorSink errors, OutboundSink sink, String component) {
        this.emitter = emitter;
        this.errors = errors;
        this.sink = sink;
        this.component = component;
    }

    @Override
    public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
        List<Integer> targets = emitter.emit(streamId, tuple);
        if (messageId != null) {
            queueAck(messageId);
        }
        return targets;
    }

    @Override
    public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
        emitter.emitDirect(taskId, streamId, tuple);
        if (messageId != null) {
            queueAck(messageId);
        }
    }

    private synchronized void queueAck(Object messageId) {
        if (pendingAcks.size() >= MAX_PENDING_ACKS) {
            throw new IllegalStateException("More than " + MAX_PENDING_ACKS
                    + " acks pending in one nextTuple call of " + component);
        }
        pendingAcks.add(messageId);
    }

    /** Takes the next message id to ack, or null. */
    synchronized Object pollAck() {
        return pendingAcks.poll();
    }

    @Override
    public long getPendingCount() {
        return 0;
    }

    @Override
    public void flush() {
        sink.flush();
    }

    @Override
    public void reportError(Throwable error) {
        errors.report(emitter.taskId(), component, error, false);
    }
}

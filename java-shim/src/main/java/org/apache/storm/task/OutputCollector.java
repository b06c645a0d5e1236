package org.apache.storm.task;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import org.apache.storm.tuple.Tuple;

/**
 * The output collector given to a bolt's {@code prepare}. Every overload delegates to the
 * {@link IOutputCollector} it wraps; the default stream is {@code "default"}.
 */
public class OutputCollector implements IOutputCollector {
    private static final String DEFAULT_STREAM = "default";

    private final IOutputCollector delegate;

    public OutputCollector(IOutputCollector delegate) {
        this.delegate = delegate;
    }

    public List<Integer> emit(String streamId, Tuple anchor, List<Object> tuple) {
        return emit(streamId, anchors(anchor), tuple);
    }

    public List<Integer> emit(String streamId, List<Object> tuple) {
        return emit(streamId, (Collection<Tuple>) null, tuple);
    }

    public List<Integer> emit(Collection<Tuple> anchors, List<Object> tuple) {
        return emit(DEFAULT_STREAM, anchors, tuple);
    }

    public List<Integer> emit(Tuple anchor, List<Object> tuple) {
        return emit(DEFAULT_STREAM, anchor, tuple);
    }

    public List<Integer> emit(List<Object> tuple) {
        return emit(DEFAULT_STREAM, tuple);
    }

    @Override
    public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        return delegate.emit(streamId, anchors, tuple);
    }

    public void emitDirect(int taskId, String streamId, Tuple anchor, List<Object> tuple) {
        emitDirect(taskId, streamId, anchors(anchor), tuple);
    }

    public void emitDirect(int taskId, String streamId, List<Object> tuple) {
        emitDirect(taskId, streamId, (Collection<Tuple>) null, tuple);
    }

    public void emitDirect(int taskId, Collection<Tuple> anchors, List<Object> tuple) {
        emitDirect(taskId, DEFAULT_STREAM, anchors, tuple);
    }

    public void emitDirect(int taskId, Tuple anchor, List<Object> tuple) {
        emitDirect(taskId, DEFAULT_STREAM, anchor, tuple);
    }

    public void emitDirect(int taskId, List<Object> tuple) {
        emitDirect(taskId, DEFAULT_STREAM, tuple);
    }

    @Override
    public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        delegate.emitDirect(taskId, streamId, anchors, tuple);
    }

    @Override
    public void ack(Tuple input) {
        delegate.ack(input);
    }

    @Override
    public void fail(Tuple input) {
        delegate.fail(input);
    }

    @Override
    public void resetTimeout(Tuple input) {
        delegate.resetTimeout(input);
    }

    @Override
    public void reportError(Throwable error) {
        delegate.reportError(error);
    }

    @Override
    public void flush() {
        delegate.flush();
    }

    private static Collection<Tuple> anchors(Tuple anchor) {
        // One small object per emit (no varargs array): the collector only reads it.
        return anchor == null ? null : Collections.singletonList(anchor);
    }
}

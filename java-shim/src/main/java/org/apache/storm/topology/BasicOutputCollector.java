package org.apache.storm.topology;

import java.util.List;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.tuple.Tuple;

/**
 * The collector of an {@code IBasicBolt}: every emit is anchored to the input tuple
 * currently being executed (set by the executor through {@link #setContext}).
 */
public class BasicOutputCollector implements IBasicOutputCollector {
    private static final String DEFAULT_STREAM = "default";

    private final OutputCollector out;
    private Tuple inputTuple;

    public BasicOutputCollector(OutputCollector out) {
        this.out = out;
    }

    @Override
    public List<Integer> emit(String streamId, List<Object> tuple) {
        return out.emit(streamId, inputTuple, tuple);
    }

    public List<Integer> emit(List<Object> tuple) {
        return emit(DEFAULT_STREAM, tuple);
    }

    public void setContext(Tuple inputTuple) {
        this.inputTuple = inputTuple;
    }

    @Override
    public void emitDirect(int taskId, String streamId, List<Object> tuple) {
        out.emitDirect(taskId, streamId, inputTuple, tuple);
    }

    public void emitDirect(int taskId, List<Object> tuple) {
        emitDirect(taskId, DEFAULT_STREAM, tuple);
    }

    @Override
    public void resetTimeout(Tuple tuple) {
        out.resetTimeout(tuple);
    }

    protected IOutputCollector getOutputter() {
        return out;
    }

    @Override
    public void reportError(Throwable error) {
        out.reportError(error);
    }
}

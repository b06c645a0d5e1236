package org.apache.storm.task;

import java.util.Collection;
import java.util.List;
import org.apache.storm.tuple.Tuple;

/** The collector a bolt task emits through; {@link OutputCollector} wraps one. */
public interface IOutputCollector extends IErrorReporter {
    /** Emits a tuple on a stream, anchored to the given tuples; returns the ids of the tasks it was sent to. */
    List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple);

    void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple);

    void ack(Tuple input);

    void fail(Tuple input);

    void resetTimeout(Tuple input);

    void flush();
}

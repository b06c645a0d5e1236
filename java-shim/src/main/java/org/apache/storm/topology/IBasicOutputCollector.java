package org.apache.storm.topology;

import java.util.List;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.tuple.Tuple;

/** The collector an {@code IBasicBolt} emits through: emits are anchored to the input being executed. */
public interface IBasicOutputCollector extends IErrorReporter {
    List<Integer> emit(String stream, List<Object> tuple);

    void emitDirect(int taskId, String stream, List<Object> tuple);

    void resetTimeout(Tuple tuple);
}

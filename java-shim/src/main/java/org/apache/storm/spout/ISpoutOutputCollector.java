package org.apache.storm.spout;

import java.util.List;
import org.apache.storm.task.IErrorReporter;

/** The collector a spout task emits through; {@link SpoutOutputCollector} wraps one. */
public interface ISpoutOutputCollector extends IErrorReporter {
    /** Emits a tuple on a stream; returns the ids of the tasks it was sent to. */
    List<Integer> emit(String streamId, List<Object> tuple, Object messageId);

    void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId);

    long getPendingCount();

    void flush();
}

package org.apache.storm.grouping;

import java.io.Serializable;
import java.util.List;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.WorkerTopologyContext;

/** A user-defined grouping: runs in the emitting task and picks the target tasks of each tuple. */
public interface CustomStreamGrouping extends Serializable {
    /** Called once per emitting task before any {@link #chooseTasks} with the subscriber's tasks, ascending. */
    void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks);

    /** The tasks (among the prepared target tasks) the tuple goes to. */
    List<Integer> chooseTasks(int taskId, List<Object> values);
}

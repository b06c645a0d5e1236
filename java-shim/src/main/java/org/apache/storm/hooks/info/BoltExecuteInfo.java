package org.apache.storm.hooks.info;

import org.apache.storm.tuple.Tuple;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A tuple a bolt task executed, with the execute latency. */
public class BoltExecuteInfo {
    public Tuple tuple;
    public int executingTaskId;
    /** Null when the tuple was not sampled. */
    public Long executeLatencyMs;

    public BoltExecuteInfo(Tuple tuple, int executingTaskId, Long executeLatencyMs) {
        this.tuple = tuple;
        this.executingTaskId = executingTaskId;
        this.executeLatencyMs = executeLatencyMs;
    }

    /** Calls {@code ITaskHook.boltExecute} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.boltExecute(this);
        }
    }
}

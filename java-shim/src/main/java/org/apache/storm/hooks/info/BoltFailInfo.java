package org.apache.storm.hooks.info;

import org.apache.storm.tuple.Tuple;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A tuple a bolt task failed, with the fail latency. */
public class BoltFailInfo {
    public Tuple tuple;
    public int failingTaskId;
    /** Null when the tuple was not sampled. */
    public Long failLatencyMs;

    public BoltFailInfo(Tuple tuple, int failingTaskId, Long failLatencyMs) {
        this.tuple = tuple;
        this.failingTaskId = failingTaskId;
        this.failLatencyMs = failLatencyMs;
    }

    /** Calls {@code ITaskHook.boltFail} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.boltFail(this);
        }
    }
}

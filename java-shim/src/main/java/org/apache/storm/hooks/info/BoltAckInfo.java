package org.apache.storm.hooks.info;

import org.apache.storm.tuple.Tuple;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A tuple a bolt task acked, with the process latency. */
public class BoltAckInfo {
    public Tuple tuple;
    public int ackingTaskId;
    /** Null when the tuple was not sampled. */
    public Long processLatencyMs;

    public BoltAckInfo(Tuple tuple, int ackingTaskId, Long processLatencyMs) {
        this.tuple = tuple;
        this.ackingTaskId = ackingTaskId;
        this.processLatencyMs = processLatencyMs;
    }

    /** Calls {@code ITaskHook.boltAck} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.boltAck(this);
        }
    }
}

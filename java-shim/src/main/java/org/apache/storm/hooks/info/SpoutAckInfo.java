package org.apache.storm.hooks.info;

import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A spout tuple whose tree completed. {@code completeLatencyMs} is null when not sampled (Egret measures every tuple). */
public class SpoutAckInfo {
    public Object messageId;
    public int spoutTaskId;
    /** Null when the tuple was not sampled. */
    public Long completeLatencyMs;

    public SpoutAckInfo(Object messageId, int spoutTaskId, Long completeLatencyMs) {
        this.messageId = messageId;
        this.spoutTaskId = spoutTaskId;
        this.completeLatencyMs = completeLatencyMs;
    }

    /** Calls {@code ITaskHook.spoutAck} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.spoutAck(this);
        }
    }
}

package org.apache.storm.hooks.info;

import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A spout tuple whose tree failed or timed out. */
public class SpoutFailInfo {
    public Object messageId;
    public int spoutTaskId;
    /** Null when the tuple was not sampled. */
    public Long failLatencyMs;

    public SpoutFailInfo(Object messageId, int spoutTaskId, Long failLatencyMs) {
        this.messageId = messageId;
        this.spoutTaskId = spoutTaskId;
        this.failLatencyMs = failLatencyMs;
    }

    /** Calls {@code ITaskHook.spoutFail} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.spoutFail(this);
        }
    }
}

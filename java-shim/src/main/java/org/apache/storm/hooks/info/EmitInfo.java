package org.apache.storm.hooks.info;

import java.util.Collection;
import java.util.List;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.task.TopologyContext;

/** A tuple a task emitted: its values, stream, emitting task and the tasks it goes to. */
public class EmitInfo {
    public List<Object> values;
    public String stream;
    public int taskId;
    public Collection<Integer> outTasks;

    public EmitInfo(List<Object> values, String stream, int taskId, Collection<Integer> outTasks) {
        this.values = values;
        this.stream = stream;
        this.taskId = taskId;
        this.outTasks = outTasks;
    }

    /** Calls {@code ITaskHook.emit} of every hook of {@code context}'s task. */
    public void applyOn(TopologyContext context) {
        for (ITaskHook hook : context.getHooks()) {
            hook.emit(this);
        }
    }
}

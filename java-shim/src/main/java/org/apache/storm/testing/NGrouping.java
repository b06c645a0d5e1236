package org.apache.storm.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.task.WorkerTopologyContext;

/** Sends every tuple to the {@code n} lowest-numbered target tasks (all of them when there are fewer). */
public class NGrouping implements CustomStreamGrouping {
    private static final long serialVersionUID = 1L;
    private final int number;
    private List<Integer> outTasks;

    public NGrouping(Integer n) {
        this.number = n;
    }

    @Override
    public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        List<Integer> sorted = new ArrayList<>(targetTasks);
        Collections.sort(sorted);
        outTasks = new ArrayList<>(sorted.subList(0, Math.min(number, sorted.size())));
    }

    @Override
    public List<Integer> chooseTasks(int taskId, List<Object> values) {
        return outTasks;
    }
}

package org.apache.storm.grouping;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.WorkerTopologyContext;

/** Round-robin over a randomly shuffled copy of the target tasks; safe for concurrent emits. */
public class ShuffleGrouping implements CustomStreamGrouping, Serializable {
    private ArrayList<List<Integer>> choices;
    private AtomicInteger current;

    public ShuffleGrouping() {
    }

    @Override
    public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        choices = new ArrayList<>(targetTasks.size());
        for (Integer i : targetTasks) {
            choices.add(Collections.singletonList(i));
        }
        Collections.shuffle(choices, ThreadLocalRandom.current());
        current = new AtomicInteger(0);
    }

    @Override
    public List<Integer> chooseTasks(int taskId, List<Object> values) {
        int size = choices.size();
        int i = Math.floorMod(current.getAndIncrement(), size);
        return choices.get(i);
    }
}

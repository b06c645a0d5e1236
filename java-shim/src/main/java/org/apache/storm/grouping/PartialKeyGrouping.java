package org.apache.storm.grouping;

import dev.egret.instance.Murmur3;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Fields;

/**
 * Key grouping with two choices: every key hashes to two candidate tasks and each
 * tuple goes to the less loaded of the two (as counted by this emitting task), which
 * balances skewed keys while keeping each key on at most two tasks.
 */
public class PartialKeyGrouping implements CustomStreamGrouping, Serializable {
    private static final long serialVersionUID = -1672360572274911808L;

    private final Fields fields;
    private final AssignmentCreator assignmentCreator;
    private final TargetSelector targetSelector;
    private List<Integer> targetTasks;
    private Fields outFields = null;

    public PartialKeyGrouping() {
        this(null);
    }

    public PartialKeyGrouping(Fields fields) {
        this(fields, new RandomTwoTaskAssignmentCreator());
    }

    public PartialKeyGrouping(Fields fields, AssignmentCreator assignmentCreator) {
        this(fields, assignmentCreator, new BalancedTargetSelector());
    }

    public PartialKeyGrouping(Fields fields, AssignmentCreator assignmentCreator, TargetSelector targetSelector) {
        this.fields = fields;
        this.assignmentCreator = assignmentCreator;
        this.targetSelector = targetSelector;
    }

    @Override
    public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        this.targetTasks = targetTasks;
        if (this.fields != null) {
            this.outFields = context.getComponentOutputFields(stream);
        }
    }

    @Override
    public List<Integer> chooseTasks(int taskId, List<Object> values) {
        List<Integer> boltIds = new ArrayList<>(1);
        if (values.size() > 0) {
            byte[] rawKeyBytes = getKeyBytes(values);
            int[] taskAssignmentForKey = assignmentCreator.createAssignment(this.targetTasks, rawKeyBytes);
            boltIds.add(targetSelector.chooseTask(taskAssignmentForKey));
        }
        return boltIds;
    }

    private byte[] getKeyBytes(List<Object> values) {
        if (fields == null) {
            return values.get(0).toString().getBytes(StandardCharsets.UTF_8);
        }
        List<Object> selectedFields = outFields.select(fields, values);
        ByteBuffer out = ByteBuffer.allocate(fields.size() * 4);
        for (Object o : selectedFields) {
            if (o instanceof List) {
                out.putInt(Arrays.deepHashCode(((List<?>) o).toArray()));
            } else if (o instanceof Object[]) {
                out.putInt(Arrays.deepHashCode((Object[]) o));
            } else if (o instanceof byte[]) {
                out.putInt(Arrays.hashCode((byte[]) o));
            } else if (o instanceof short[]) {
                out.putInt(Arrays.hashCode((short[]) o));
            } else if (o instanceof int[]) {
                out.putInt(Arrays.hashCode((int[]) o));
            } else if (o instanceof long[]) {
                out.putInt(Arrays.hashCode((long[]) o));
            } else if (o instanceof char[]) {
                out.putInt(Arrays.hashCode((char[]) o));
            } else if (o instanceof float[]) {
                out.putInt(Arrays.hashCode((float[]) o));
            } else if (o instanceof double[]) {
                out.putInt(Arrays.hashCode((double[]) o));
            } else if (o instanceof boolean[]) {
                out.putInt(Arrays.hashCode((boolean[]) o));
            } else if (o != null) {
                out.putInt(o.hashCode());
            } else {
                out.putInt(0);
            }
        }
        return out.array();
    }

    /** Maps a key to its candidate tasks. */
    public interface AssignmentCreator extends Serializable {
        int[] createAssignment(List<Integer> targetTasks, byte[] key);
    }

    /** Picks one task among a key's candidates. */
    public interface TargetSelector extends Serializable {
        Integer chooseTask(int[] assignedTasks);
    }

    /** Two candidates from two independent murmur3-128 hashes (seeds 13 and 17) of the key. */
    public static class RandomTwoTaskAssignmentCreator implements AssignmentCreator {
        public RandomTwoTaskAssignmentCreator() {
        }

        @Override
        public int[] createAssignment(List<Integer> tasks, byte[] key) {
            int firstChoice = (int) (Math.abs(Murmur3.hash128AsLong(key, 13)) % tasks.size());
            int secondChoice = (int) (Math.abs(Murmur3.hash128AsLong(key, 17)) % tasks.size());
            return new int[] {tasks.get(firstChoice), tasks.get(secondChoice)};
        }
    }

    /** The candidate this selector has sent the fewest tuples to (the first one on ties). */
    public static class BalancedTargetSelector implements TargetSelector {
        private final Map<Integer, Long> targetTaskStats = new HashMap<>();

        public BalancedTargetSelector() {
        }

        @Override
        public Integer chooseTask(int[] assignedTasks) {
            int taskIdWithMinLoad = assignedTasks[0];
            long minTaskLoad = targetTaskStats.getOrDefault(assignedTasks[0], 0L);
            for (int i = 1; i < assignedTasks.length; i++) {
                long load = targetTaskStats.getOrDefault(assignedTasks[i], 0L);
                if (load < minTaskLoad) {
                    taskIdWithMinLoad = assignedTasks[i];
                    minTaskLoad = load;
                }
            }
            targetTaskStats.put(taskIdWithMinLoad, minTaskLoad + 1);
            return taskIdWithMinLoad;
        }
    }
}

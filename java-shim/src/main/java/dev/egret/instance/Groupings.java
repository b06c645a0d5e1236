package dev.egret.instance;

import dev.egret.serialization.JavaSerialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Fields;

/**
 * Storm's groupings, evaluated in the emitting task. Every chooser works on the
 * subscriber's task list sorted ascending, so a fields grouping sends a key to the same
 * task Storm would ({@code floorMod(Arrays.deepHashCode(keys), n)}).
 */
final class Groupings {
    private Groupings() {
    }

    /** Marker for a direct subscription: regular emits may not go there. */
    static final TargetChooser DIRECT = (task, values) -> {
        throw new IllegalArgumentException("Cannot do regular emit to direct stream");
    };

    static TargetChooser shuffle(List<Integer> targets) {
        return new Shuffle(targets);
    }

    /** Fields grouping; an empty field list is Storm's global grouping (the lowest task). */
    static TargetChooser fields(Fields outputFields, List<String> groupFields, List<Integer> targets) {
        if (groupFields.isEmpty()) {
            return global(targets);
        }
        int[] indexes = new int[groupFields.size()];
        for (int i = 0; i < indexes.length; i++) {
            if (!outputFields.contains(groupFields.get(i))) {
                throw new IllegalArgumentException("Fields grouping on field '" + groupFields.get(i)
                        + "' which is not among the stream's output fields " + outputFields);
            }
            indexes[i] = outputFields.fieldIndex(groupFields.get(i));
        }
        List<List<Integer>> choices = singletons(List.copyOf(targets));
        int n = choices.size();
        return (task, values) -> choices.get(Math.floorMod(keyHash(values, indexes), n));
    }

    /**
     * Storm's TupleUtils.chooseTaskIndex hash, {@code Arrays.deepHashCode} of the grouping
     * fields' values, computed without building an array of them per emit.
     */
    static int keyHash(List<Object> values, int[] indexes) {
        int h = 1;
        for (int index : indexes) {
            h = 31 * h + deepHash(values.get(index));
        }
        return h;
    }

    /** An element's hash as {@code Arrays.deepHashCode} takes it: arrays by content. */
    private static int deepHash(Object e) {
        if (e == null) {
            return 0;
        } else if (e instanceof Object[]) {
            return Arrays.deepHashCode((Object[]) e);
        } else if (e instanceof byte[]) {
            return Arrays.hashCode((byte[]) e);
        } else if (e instanceof short[]) {
            return Arrays.hashCode((short[]) e);
        } else if (e instanceof int[]) {
            return Arrays.hashCode((int[]) e);
        } else if (e instanceof long[]) {
            return Arrays.hashCode((long[]) e);
        } else if (e instanceof char[]) {
            return Arrays.hashCode((char[]) e);
        } else if (e instanceof float[]) {
            return Arrays.hashCode((float[]) e);
        } else if (e instanceof double[]) {
            return Arrays.hashCode((double[]) e);
        } else if (e instanceof boolean[]) {
            return Arrays.hashCode((boolean[]) e);
        }
        return e.hashCode();
    }

    static TargetChooser global(List<Integer> targets) {
        List<Integer> lowest = Collections.singletonList(Collections.min(targets));
        return (task, values) -> lowest;
    }

    static TargetChooser all(List<Integer> targets) {
        List<Integer> everyone = List.copyOf(targets);
        return (task, values) -> everyone;
    }

    /** Storm's none grouping: a random task. */
    static TargetChooser none(List<Integer> targets) {
        List<List<Integer>> choices = singletons(targets);
        return (task, values) -> choices.get(ThreadLocalRandom.current().nextInt(choices.size()));
    }

    /** One immutable single-task list per target, built once so an emit allocates none. */
    private static List<List<Integer>> singletons(List<Integer> targets) {
        List<List<Integer>> c = new ArrayList<>(targets.size());
        for (Integer t : targets) {
            c.add(Collections.singletonList(t));
        }
        return c;
    }

    /** Shuffle among the targets in the emitting instance's container, or among all when none is local. */
    static TargetChooser localOrShuffle(List<Integer> targets, Map<Integer, Integer> taskContainer, int container) {
        List<Integer> local = new ArrayList<>();
        for (Integer t : targets) {
            if (inContainer(taskContainer, t, container)) {
                local.add(t);
            }
        }
        return new Shuffle(local.isEmpty() ? targets : local);
    }

    /** Whether the packing plan put {@code task} in {@code container}. */
    static boolean inContainer(Map<Integer, Integer> taskContainer, int task, int container) {
        Integer c = taskContainer.get(task);
        return c != null && c == container;
    }

    /** Deserializes and prepares a custom grouping (one instance per emitting task, as Storm). */
    static TargetChooser custom(byte[] serialized, WorkerTopologyContext context, GlobalStreamId stream,
                                List<Integer> targets) {
        Object o;
        try {
            o = JavaSerialization.deserialize(serialized);
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("Could not deserialize the custom grouping of " + stream, e);
        }
        if (!(o instanceof CustomStreamGrouping)) {
            throw new IllegalStateException("The custom grouping of " + stream + " is a "
                    + o.getClass().getName() + ", not a CustomStreamGrouping");
        }
        CustomStreamGrouping g = (CustomStreamGrouping) o;
        g.prepare(context, stream, new ArrayList<>(targets));
        return (task, values) -> {
            List<Integer> chosen = g.chooseTasks(task, values);
            return chosen == null ? Collections.emptyList() : chosen;
        };
    }

    /** Round-robin over a randomly shuffled copy of the targets. */
    private static final class Shuffle implements TargetChooser {
        private final List<List<Integer>> choices;
        private final AtomicInteger current = new AtomicInteger();

        Shuffle(List<Integer> targets) {
            List<List<Integer>> c = singletons(targets);
            Collections.shuffle(c, ThreadLocalRandom.current());
            this.choices = c;
        }

        @Override
        public List<Integer> choose(int sourceTask, List<Object> values) {
            return choices.get(Math.floorMod(current.getAndIncrement(), choices.size()));
        }
    }
}

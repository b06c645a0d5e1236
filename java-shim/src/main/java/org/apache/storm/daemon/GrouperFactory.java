package org.apache.storm.daemon;

import java.io.Serializable;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.JavaObject;
import org.apache.storm.generated.JavaObjectArg;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.grouping.LoadAwareCustomStreamGrouping;
import org.apache.storm.grouping.LoadAwareShuffleGrouping;
import org.apache.storm.grouping.LoadMapping;
import org.apache.storm.grouping.ShuffleGrouping;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.TupleUtils;
import org.apache.storm.utils.Utils;

/**
 * Makes the grouper of one subscription from its Thrift {@link Grouping}, as Storm's worker
 * does: every grouper is load aware (a plain {@link CustomStreamGrouping} is wrapped in
 * {@link BasicLoadAwareCustomStreamGrouping}) and comes back prepared with the target tasks.
 * Egret's instance runtime evaluates groupings itself ({@code dev.egret.instance.Groupings},
 * with the same task choices); this class is for code and tests that build Storm's groupers
 * directly.
 */
public class GrouperFactory {
    /**
     * The grouper of a direct subscription: it chooses no task (a direct stream's tuples
     * name their task), and its load and preparation are ignored.
     */
    public static final LoadAwareCustomStreamGrouping DIRECT = new LoadAwareCustomStreamGrouping() {
        @Override
        public void refreshLoad(LoadMapping loadMapping) {
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return null;
        }
    };

    public GrouperFactory() {
    }

    /**
     * The prepared grouper for tuples of {@code componentId}'s stream {@code streamId} (output
     * fields {@code outFields}) sent to {@code targetTasks}; null for a grouping Storm does not
     * know. A shuffle or local-or-shuffle grouping is {@link LoadAwareShuffleGrouping}, or
     * {@link ShuffleGrouping} when {@code topology.disable.loadaware.messaging} is true.
     */
    public static LoadAwareCustomStreamGrouping mkGrouper(WorkerTopologyContext context, String componentId,
            String streamId, Fields outFields, Grouping thriftGrouping, List<Integer> targetTasks,
            Map<String, Object> topoConf) {
        boolean loadAwareDisabled = ObjectReader.getBoolean(
                topoConf == null ? null : topoConf.get(Config.TOPOLOGY_DISABLE_LOADAWARE_MESSAGING), false);
        CustomStreamGrouping grouper;
        switch (thriftGrouping.getSetField()) {
            case FIELDS:
                grouper = thriftGrouping.get_fields().isEmpty()
                        ? new GlobalGrouper() : new FieldsGrouper(outFields, thriftGrouping);
                break;
            case SHUFFLE:
            case LOCAL_OR_SHUFFLE:
                grouper = loadAwareDisabled ? new ShuffleGrouping() : new LoadAwareShuffleGrouping();
                break;
            case ALL:
                grouper = new AllGrouper();
                break;
            case NONE:
                grouper = new NoneGrouper();
                break;
            case CUSTOM_OBJECT:
                grouper = (CustomStreamGrouping) instantiate(thriftGrouping.get_custom_object());
                break;
            case CUSTOM_SERIALIZED:
                grouper = Utils.javaDeserialize(thriftGrouping.get_custom_serialized(), Serializable.class)
                        instanceof CustomStreamGrouping g ? g : null;
                if (grouper == null) {
                    throw new IllegalArgumentException("The custom serialized grouping of " + componentId + ":"
                            + streamId + " is not a CustomStreamGrouping");
                }
                break;
            case DIRECT:
                return DIRECT;
            default:
                return null;
        }
        LoadAwareCustomStreamGrouping result = grouper instanceof LoadAwareCustomStreamGrouping
                ? (LoadAwareCustomStreamGrouping) grouper : new BasicLoadAwareCustomStreamGrouping(grouper);
        result.prepare(context, new GlobalStreamId(componentId, streamId), targetTasks);
        return result;
    }

    /** A {@link JavaObject}: its class made with the constructor whose parameters take its arguments. */
    private static Object instantiate(JavaObject object) {
        List<Object> args = new ArrayList<>();
        for (JavaObjectArg arg : object.get_args_list()) {
            args.add(arg.getFieldValue());
        }
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class<?> klass = Class.forName(object.get_full_class_name(), true,
                    cl != null ? cl : GrouperFactory.class.getClassLoader());
            for (Constructor<?> c : klass.getConstructors()) {
                if (c.getParameterCount() == args.size() && accepts(c.getParameterTypes(), args)) {
                    return c.newInstance(args.toArray());
                }
            }
            throw new IllegalArgumentException("No public constructor of " + object.get_full_class_name()
                    + " takes the arguments " + args);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("Could not make " + object.get_full_class_name() + ": " + e, e);
        }
    }

    private static boolean accepts(Class<?>[] types, List<Object> args) {
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i].isPrimitive() ? boxed(types[i]) : types[i];
            Object a = args.get(i);
            if (a != null && !t.isInstance(a)) {
                return false;
            }
        }
        return true;
    }

    private static Class<?> boxed(Class<?> primitive) {
        if (primitive == int.class) {
            return Integer.class;
        } else if (primitive == long.class) {
            return Long.class;
        } else if (primitive == double.class) {
            return Double.class;
        } else if (primitive == boolean.class) {
            return Boolean.class;
        }
        return primitive;
    }

    /** Sends each tuple to the task its group fields hash to (Storm's task choice for a key). */
    public static class FieldsGrouper implements CustomStreamGrouping {
        private Fields outFields;
        private List<List<Integer>> targetTasks;
        private Fields groupFields;
        private int numTasks;

        public FieldsGrouper(Fields outFields, Grouping thriftGrouping) {
            this.outFields = outFields;
            this.groupFields = new Fields(thriftGrouping.get_fields());
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            this.targetTasks = new ArrayList<>(targetTasks.size());
            for (Integer task : targetTasks) {
                this.targetTasks.add(Collections.singletonList(task));
            }
            this.numTasks = targetTasks.size();
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            List<Object> keys = outFields.select(groupFields, values);
            return targetTasks.get(TupleUtils.chooseTaskIndex(keys, numTasks));
        }
    }

    /** Sends every tuple to the lowest target task. */
    public static class GlobalGrouper implements CustomStreamGrouping {
        private List<Integer> targetTasks;

        public GlobalGrouper() {
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            this.targetTasks = targetTasks;
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            if (targetTasks.isEmpty()) {
                return null;
            }
            return Collections.singletonList(Collections.min(targetTasks));
        }
    }

    /** Sends every tuple to a random target task. */
    public static class NoneGrouper implements CustomStreamGrouping {
        private final Random random;
        private List<Integer> targetTasks;
        private int numTasks;

        public NoneGrouper() {
            this.random = new Random();
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            this.targetTasks = targetTasks;
            this.numTasks = targetTasks.size();
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return Collections.singletonList(targetTasks.get(random.nextInt(numTasks)));
        }
    }

    /** Sends every tuple to every target task. */
    public static class AllGrouper implements CustomStreamGrouping {
        private List<Integer> targetTasks;

        public AllGrouper() {
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            this.targetTasks = targetTasks;
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return targetTasks;
        }
    }

    /** A {@link CustomStreamGrouping} seen as load aware: the load is ignored. */
    public static class BasicLoadAwareCustomStreamGrouping implements LoadAwareCustomStreamGrouping {
        private final CustomStreamGrouping customStreamGrouping;

        public BasicLoadAwareCustomStreamGrouping(CustomStreamGrouping customStreamGrouping) {
            this.customStreamGrouping = customStreamGrouping;
        }

        @Override
        public void refreshLoad(LoadMapping loadMapping) {
        }

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            customStreamGrouping.prepare(context, stream, targetTasks);
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return customStreamGrouping.chooseTasks(taskId, values);
        }
    }
}

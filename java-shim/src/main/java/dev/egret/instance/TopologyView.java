package dev.egret.instance;

import dev.egret.proto.Component;
import dev.egret.proto.InputDef;
import dev.egret.proto.Topology;
import dev.egret.runtime.TopologyModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.tuple.Fields;

/**
 * The instance runtime's view of the logical plan: {@link TopologyModel} (task ids,
 * fields, configs, in Storm's terms) plus what routing needs: for every (component,
 * stream) the subscriptions with their wire groupings and sorted target tasks.
 *
 * <p>Invariants: immutable after construction; every task list is sorted ascending;
 * the pseudo component {@code __system} has the stream {@code __tick} with the field
 * {@code rate_secs}, so tick tuples resolve their fields like any other tuple.
 */
public final class TopologyView {
    public static final String SYSTEM_COMPONENT = "__system";
    public static final String TICK_STREAM = "__tick";
    public static final int SYSTEM_TASK = -1;

    /** One subscription of a bolt to a (component, stream). */
    public static final class Subscription {
        public final String component;
        public final dev.egret.proto.Grouping grouping;
        /** The subscriber's tasks, ascending. */
        public final List<Integer> targetTasks;

        Subscription(String component, dev.egret.proto.Grouping grouping, List<Integer> targetTasks) {
            this.component = component;
            this.grouping = grouping;
            this.targetTasks = targetTasks;
        }
    }

    private final TopologyModel model;
    private final String stormId;
    private final Map<String, Object> topologyConf;
    private final Map<String, List<Integer>> componentToTasks;
    private final Map<String, Map<String, Fields>> componentToStreamToFields;
    private final Map<String, Map<String, List<Subscription>>> subscribers = new HashMap<>();
    private final Map<String, Map<String, Object>> componentConfs = new HashMap<>();
    private StormTopology rawTopology;

    /** Numbers the tasks itself (tests, and the submitter JVM's view). */
    public TopologyView(Topology topology) {
        this(TopologyModel.of(topology));
    }

    /**
     * An instance's view: the task ids are the assignment's {@code task_component} map
     * (the packing plan's), not a numbering of its own.
     *
     * @throws IllegalArgumentException if the assignment is inconsistent
     */
    public TopologyView(dev.egret.proto.InstanceAssignment assignment) {
        this(TopologyModel.of(assignment.getTopology(), assignment.getTaskComponentMap()));
    }

    /** @throws IllegalArgumentException if the plan is inconsistent */
    private TopologyView(TopologyModel model) {
        Topology topology = model.proto();
        this.model = model;
        this.stormId = topology.getId().isEmpty() ? topology.getName() : topology.getId();
        this.topologyConf = Collections.unmodifiableMap(model.topologyConfig());
        Map<String, List<Integer>> c2t = new HashMap<>();
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        for (String id : model.componentIds()) {
            c2t.put(id, model.taskIds(id));
            fields.put(id, Collections.unmodifiableMap(model.outputFields(id)));
            componentConfs.put(id, Collections.unmodifiableMap(model.componentConfig(id)));
        }
        Map<String, Fields> system = new HashMap<>();
        system.put(TICK_STREAM, new Fields("rate_secs"));
        fields.put(SYSTEM_COMPONENT, Collections.unmodifiableMap(system));
        this.componentToTasks = Collections.unmodifiableMap(c2t);
        this.componentToStreamToFields = Collections.unmodifiableMap(fields);
        for (String id : model.componentIds()) {
            for (InputDef in : model.component(id).getInputsList()) {
                subscribers.computeIfAbsent(in.getComponent(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(in.getStream(), k -> new ArrayList<>())
                        .add(new Subscription(id, in.getGrouping(), tasksOf(id)));
            }
        }
    }

    public TopologyModel model() {
        return model;
    }

    public String stormId() {
        return stormId;
    }

    public Map<String, Object> topologyConf() {
        return topologyConf;
    }

    public Component component(String id) {
        return model.hasComponent(id) ? model.component(id) : null;
    }

    public boolean isSpout(String id) {
        return model.hasComponent(id) && model.isSpout(id);
    }

    public Map<Integer, String> taskToComponent() {
        return model.taskToComponent();
    }

    public Map<String, List<Integer>> componentToTasks() {
        return componentToTasks;
    }

    public List<Integer> tasksOf(String component) {
        List<Integer> t = componentToTasks.get(component);
        return t == null ? Collections.emptyList() : t;
    }

    public String componentOf(int task) {
        // model.componentOf, not taskToComponent(): that one copies the map, and this runs per tuple.
        return task == SYSTEM_TASK ? SYSTEM_COMPONENT : model.componentOf(task);
    }

    public Map<String, Map<String, Fields>> componentToStreamToFields() {
        return componentToStreamToFields;
    }

    /** Output fields of a stream, or null when the component did not declare it. */
    public Fields outputFields(String component, String stream) {
        Map<String, Fields> s = componentToStreamToFields.get(component);
        return s == null ? null : s.get(stream);
    }

    public boolean isDirectStream(String component, String stream) {
        return model.hasComponent(component) && model.isDirect(component, stream);
    }

    /** Subscriptions to (component, stream), in declaration order; empty when nobody listens. */
    public List<Subscription> subscribers(String component, String stream) {
        Map<String, List<Subscription>> s = subscribers.get(component);
        if (s == null) {
            return Collections.emptyList();
        }
        List<Subscription> l = s.get(stream);
        return l == null ? Collections.emptyList() : l;
    }

    public Map<GlobalStreamId, Grouping> sources(String component) {
        return model.inputs(component);
    }

    /** Storm's getTargets: stream id to subscriber component to grouping. */
    public Map<String, Map<String, Grouping>> targets(String component) {
        return model.targets(component);
    }

    /** Topology config overlaid with the component's own config (what open/prepare receive). */
    public Map<String, Object> componentConf(String component) {
        Map<String, Object> c = componentConfs.get(component);
        return c == null ? topologyConf : c;
    }

    /** Storm's StormTopology for {@code getRawTopology()}, built on first use. */
    public synchronized StormTopology rawTopology() {
        if (rawTopology == null) {
            rawTopology = model.toStormTopology();
        }
        return rawTopology;
    }
}

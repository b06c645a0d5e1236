package dev.egret.runtime;

import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.proto.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.NullStruct;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.tuple.Fields;

/**
 * An immutable, indexed view over a {@link Topology} (the logical plan), in Storm's terms.
 *
 * <p>Invariants:
 * <ul>
 *   <li>component ids are iterated in byte (String natural) order, as Storm's TreeMap does;</li>
 *   <li>task ids are either given (an instance's assignment carries the stream manager's
 *       task-to-component map, from the packing plan: {@link #of(Topology, Map)}), or, in the
 *       submitter JVM before Rust has seen the topology ({@link #of(Topology)}), assigned as
 *       Storm does: components in that order, {@code num_tasks} consecutive ids each, from 1;</li>
 *   <li>the component config is the topology config overlaid with the component's own JSON
 *       config (component keys win), parsed once; callers get fresh copies;</li>
 *   <li>{@code targets} of a component are derived from every other component's inputs, so
 *       {@code targets(a).get(s).get(b)} is the grouping {@code b} uses to subscribe to
 *       stream {@code s} of {@code a}.</li>
 * </ul>
 */
public final class TopologyModel {
    private final Topology topology;
    private final Map<String, Object> topologyConfig;
    private final TreeMap<String, Component> components = new TreeMap<>();
    private final Map<String, List<Integer>> tasks = new HashMap<>();
    private final Map<Integer, String> taskToComponent = new HashMap<>();
    private final Map<Integer, Integer> taskIndexes = new HashMap<>();
    private final Map<String, Map<String, StreamDef>> streams = new HashMap<>();
    private final Map<String, Map<String, Fields>> fields = new HashMap<>();
    private final Map<String, Map<GlobalStreamId, Grouping>> inputs = new HashMap<>();
    private final Map<String, Map<String, Map<String, Grouping>>> targets = new HashMap<>();
    private final Map<String, Map<String, Object>> componentConfigs = new HashMap<>();
    private final int maxTaskId;

    private TopologyModel(Topology topology, Map<Integer, String> assigned) {
        this.topology = topology;
        this.topologyConfig = ConfigJson.parse(topology.getConfigJson());
        for (Component c : topology.getComponentsList()) {
            if (components.put(c.getId(), c) != null) {
                throw new IllegalArgumentException("component id '" + c.getId() + "' appears twice in the topology");
            }
        }
        Map<String, List<Integer>> byComponent = new HashMap<>();
        int next = 1;
        if (assigned != null) {
            for (Map.Entry<Integer, String> e : new TreeMap<>(assigned).entrySet()) {
                if (!components.containsKey(e.getValue())) {
                    throw new IllegalArgumentException("task " + e.getKey() + " belongs to component '"
                            + e.getValue() + "', which the topology does not have");
                }
                byComponent.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
                taskToComponent.put(e.getKey(), e.getValue());
                next = Math.max(next, e.getKey() + 1);
            }
        }
        for (Component c : components.values()) {
            List<Integer> ids;
            if (assigned != null) {
                ids = byComponent.getOrDefault(c.getId(), new ArrayList<>());
            } else {
                if (c.getNumTasks() < 0) {
                    throw new IllegalArgumentException("component '" + c.getId() + "' has a negative task count");
                }
                ids = new ArrayList<>(c.getNumTasks());
                for (int i = 0; i < c.getNumTasks(); i++) {
                    ids.add(next);
                    taskToComponent.put(next, c.getId());
                    next++;
                }
            }
            for (int i = 0; i < ids.size(); i++) {
                taskIndexes.put(ids.get(i), i);
            }
            tasks.put(c.getId(), Collections.unmodifiableList(ids));

            Map<String, StreamDef> byStream = new LinkedHashMap<>();
            Map<String, Fields> fieldsByStream = new LinkedHashMap<>();
            for (StreamDef s : c.getStreamsList()) {
                byStream.put(s.getId(), s);
                fieldsByStream.put(s.getId(), new Fields(s.getFieldsList()));
            }
            streams.put(c.getId(), byStream);
            fields.put(c.getId(), fieldsByStream);

            Map<String, Object> merged = new HashMap<>(topologyConfig);
            merged.putAll(ConfigJson.parse(c.getConfigJson()));
            componentConfigs.put(c.getId(), merged);
            targets.put(c.getId(), new HashMap<>());
        }
        this.maxTaskId = next - 1;

        for (Component c : components.values()) {
            Map<GlobalStreamId, Grouping> in = new LinkedHashMap<>();
            for (InputDef input : c.getInputsList()) {
                Grouping g = toStormGrouping(input.getGrouping());
                in.put(new GlobalStreamId(input.getComponent(), input.getStream()), g);
                Map<String, Map<String, Grouping>> ofSource = targets.get(input.getComponent());
                if (ofSource != null) {
                    ofSource.computeIfAbsent(input.getStream(), k -> new HashMap<>()).put(c.getId(), g);
                }
            }
            inputs.put(c.getId(), in);
        }
    }

    /**
     * Builds the view.
     *
     * @throws IllegalArgumentException if the plan is inconsistent (duplicate ids, bad JSON)
     */
    public static TopologyModel of(Topology topology) {
        return new TopologyModel(topology, null);
    }

    /**
     * Builds the view with the task ids given: {@code taskToComponent} is the instance
     * assignment's map (the packing plan's), not a numbering of our own.
     *
     * @throws IllegalArgumentException if a task belongs to an unknown component
     */
    public static TopologyModel of(Topology topology, Map<Integer, String> taskToComponent) {
        if (taskToComponent == null || taskToComponent.isEmpty()) {
            throw new IllegalArgumentException("the task-to-component map is empty");
        }
        return new TopologyModel(topology, taskToComponent);
    }

    public Topology proto() {
        return topology;
    }

    public String name() {
        return topology.getName();
    }

    public String id() {
        return topology.getId();
    }

    /** The merged topology config (a fresh mutable copy). */
    public Map<String, Object> topologyConfig() {
        return new HashMap<>(topologyConfig);
    }

    /** Component ids in Storm's order (sorted). */
    public List<String> componentIds() {
        return new ArrayList<>(components.keySet());
    }

    /** @throws IllegalArgumentException for an unknown component */
    public Component component(String componentId) {
        Component c = components.get(componentId);
        if (c == null) {
            throw new IllegalArgumentException("unknown component '" + componentId + "'");
        }
        return c;
    }

    public boolean hasComponent(String componentId) {
        return components.containsKey(componentId);
    }

    public boolean isSpout(String componentId) {
        return component(componentId).getKind() == ComponentKind.COMPONENT_KIND_SPOUT;
    }

    /** Task ids of a component, ascending (empty for an unknown component). */
    public List<Integer> taskIds(String componentId) {
        List<Integer> t = tasks.get(componentId);
        return t == null ? Collections.emptyList() : t;
    }

    /** The component owning a task id, or null. */
    public String componentOf(int taskId) {
        return taskToComponent.get(taskId);
    }

    /** Every task id to its component (a fresh copy). */
    public Map<Integer, String> taskToComponent() {
        return new HashMap<>(taskToComponent);
    }

    /** 0-based position of a task within its component's tasks, or -1. */
    public int taskIndex(int taskId) {
        Integer i = taskIndexes.get(taskId);
        return i == null ? -1 : i;
    }

    /** The highest task id (the total number of tasks). */
    public int maxTaskId() {
        return maxTaskId;
    }

    /** Stream ids a component declared, sorted. */
    public List<String> streamIds(String componentId) {
        Map<String, StreamDef> s = streams.get(componentId);
        return s == null ? Collections.emptyList() : new ArrayList<>(new java.util.TreeSet<>(s.keySet()));
    }

    /** Output fields of a stream, or null when the component did not declare it. */
    public Fields outputFields(String componentId, String streamId) {
        Map<String, Fields> f = fields.get(componentId);
        return f == null ? null : f.get(streamId);
    }

    /** Output fields of every stream of a component (stream id to fields; a fresh copy). */
    public Map<String, Fields> outputFields(String componentId) {
        Map<String, Fields> f = fields.get(componentId);
        return f == null ? new HashMap<>() : new HashMap<>(f);
    }

    /** Whether a stream was declared direct (false when undeclared). */
    public boolean isDirect(String componentId, String streamId) {
        Map<String, StreamDef> s = streams.get(componentId);
        StreamDef d = s == null ? null : s.get(streamId);
        return d != null && d.getDirect();
    }

    /** What a component subscribes to, in declaration order (a fresh copy). */
    public Map<GlobalStreamId, Grouping> inputs(String componentId) {
        Map<GlobalStreamId, Grouping> in = inputs.get(componentId);
        return in == null ? new LinkedHashMap<>() : new LinkedHashMap<>(in);
    }

    /** Who subscribes to a component's streams: stream id to (subscriber id to grouping); a fresh copy. */
    public Map<String, Map<String, Grouping>> targets(String componentId) {
        Map<String, Map<String, Grouping>> out = new HashMap<>();
        Map<String, Map<String, Grouping>> t = targets.get(componentId);
        if (t != null) {
            t.forEach((stream, subs) -> out.put(stream, new HashMap<>(subs)));
        }
        return out;
    }

    /** The topology config overlaid with the component's config (a fresh mutable copy). */
    public Map<String, Object> componentConfig(String componentId) {
        Map<String, Object> c = componentConfigs.get(componentId);
        if (c == null) {
            throw new IllegalArgumentException("unknown component '" + componentId + "'");
        }
        return new HashMap<>(c);
    }

    /** Only the component's own config (without the topology config), parsed. */
    public Map<String, Object> componentOwnConfig(String componentId) {
        return ConfigJson.parse(component(componentId).getConfigJson());
    }

    /** Rebuilds Storm's {@link StormTopology} (for {@code TopologyContext.getRawTopology()}). */
    public StormTopology toStormTopology() {
        StormTopology t = new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>());
        for (Component c : components.values()) {
            Map<String, StreamInfo> s = new HashMap<>();
            for (StreamDef d : c.getStreamsList()) {
                s.put(d.getId(), new StreamInfo(new ArrayList<>(d.getFieldsList()), d.getDirect()));
            }
            ComponentCommon common = new ComponentCommon(inputs(c.getId()), s);
            common.set_parallelism_hint(c.getParallelism());
            common.set_json_conf(c.getConfigJson());
            ComponentObject obj = ComponentObject.serialized_java(c.getSerializedJava().toByteArray());
            if (c.getKind() == ComponentKind.COMPONENT_KIND_SPOUT) {
                t.put_to_spouts(c.getId(), new SpoutSpec(obj, common));
            } else {
                t.put_to_bolts(c.getId(), new Bolt(obj, common));
            }
        }
        t.set_storm_version(topology.getStormVersion());
        return t;
    }

    /** Converts a wire grouping to Storm's union. */
    public static Grouping toStormGrouping(dev.egret.proto.Grouping g) {
        switch (g.getKindCase()) {
            case FIELDS:
                return Grouping.fields(new ArrayList<>(g.getFields().getFieldsList()));
            case SHUFFLE:
                return Grouping.shuffle(new NullStruct());
            case ALL:
                return Grouping.all(new NullStruct());
            case NONE:
                return Grouping.none(new NullStruct());
            case DIRECT:
                return Grouping.direct(new NullStruct());
            case CUSTOM_SERIALIZED:
                return Grouping.custom_serialized(g.getCustomSerialized().toByteArray());
            case LOCAL_OR_SHUFFLE:
                return Grouping.local_or_shuffle(new NullStruct());
            default:
                throw new IllegalArgumentException("grouping kind is not set");
        }
    }
}

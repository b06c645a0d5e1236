package dev.egret.client;

import com.google.protobuf.ByteString;
import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.Empty;
import dev.egret.proto.FieldList;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.proto.Topology;
import dev.egret.metrics.EventLoggers;
import dev.egret.metrics.MetricsConsumers;
import dev.egret.runtime.ConfigJson;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.storm.Config;
import org.apache.storm.Constants;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.Utils;

/**
 * Turns a {@link StormTopology} plus its merged config into the {@code Topology} message
 * (the logical plan), validating it the way Storm's submitter and Nimbus do.
 *
 * <p>Task counts follow Storm: {@code topology.tasks} from the component config over the
 * topology config, else the parallelism hint (default 1), capped by
 * {@code topology.max.task.parallelism}; executors = min(parallelism hint, tasks). The
 * component config gets {@code topology.tasks} set to the result, as Nimbus normalizes it.
 */
public final class TopologyCapture {
    private TopologyCapture() {
    }

    /**
     * Validates and converts.
     *
     * @param name the name given to StormSubmitter
     * @param conf the fully merged topology config
     * @throws InvalidTopologyException naming the component, stream or field at fault
     * @throws IllegalArgumentException if the config cannot be carried as JSON
     */
    public static Topology capture(String name, Map<String, Object> conf, StormTopology topology)
            throws InvalidTopologyException {
        validateName(name);
        if (topology == null) {
            throw new InvalidTopologyException("Topology '" + name + "' is null");
        }
        String configJson = ConfigJson.toJson(dev.egret.instance.WorkerHooks.carryInConfig(conf, topology));
        ConfigValidation.validateTopologyConfig(conf);

        if (topology.get_state_spouts_size() > 0) {
            throw new InvalidTopologyException("State spouts are not supported (topology '" + name + "')");
        }
        TreeMap<String, ComponentCommon> commons = new TreeMap<>();
        TreeMap<String, ComponentObject> objects = new TreeMap<>();
        Set<String> spoutIds = new HashSet<>();
        if (topology.get_spouts() != null) {
            topology.get_spouts().forEach((id, spec) -> {
                commons.put(id, spec.get_common());
                objects.put(id, spec.get_spout_object());
                spoutIds.add(id);
            });
        }
        if (topology.get_bolts() != null) {
            for (var e : topology.get_bolts().entrySet()) {
                if (commons.containsKey(e.getKey())) {
                    throw new InvalidTopologyException("Duplicate component id '" + e.getKey()
                            + "': it names both a spout and a bolt");
                }
                commons.put(e.getKey(), e.getValue().get_common());
                objects.put(e.getKey(), e.getValue().get_bolt_object());
            }
        }
        if (spoutIds.isEmpty()) {
            throw new InvalidTopologyException("Topology '" + name + "' does not have any spout");
        }
        for (String id : commons.keySet()) {
            if (id == null || id.isEmpty()) {
                throw new InvalidTopologyException("A component id is empty");
            }
            if (Utils.isSystemId(id)) {
                throw new InvalidTopologyException(id + " is not a valid component id.");
            }
        }
        validateStructure(commons);

        // Storm's metrics consumers: system bolts subscribed to every component's __metrics
        // stream. They join the sorted component ids, so task ids follow Storm's rule.
        List<String> userIds = new ArrayList<>(commons.keySet());
        List<MetricsConsumers.Spec> consumers = MetricsConsumers.fromConfig(conf, userIds);
        for (MetricsConsumers.Spec spec : consumers) {
            commons.put(spec.id, spec.common);
            objects.put(spec.id, spec.object);
        }
        boolean metricsStream = !consumers.isEmpty();
        // Storm's event logger: a system bolt subscribed to every user component's __eventlog stream.
        MetricsConsumers.Spec eventLogger = EventLoggers.fromConfig(conf, new ArrayList<>(userIds));
        if (eventLogger != null) {
            commons.put(eventLogger.id, eventLogger.common);
            objects.put(eventLogger.id, eventLogger.object);
        }
        boolean eventLogStream = eventLogger != null;

        Topology.Builder out = Topology.newBuilder()
                .setName(name)
                .setConfigJson(configJson)
                .setStormVersion(topology.is_set_storm_version() ? topology.get_storm_version()
                        : TopologyBuilder.STORM_VERSION);
        for (String id : commons.keySet()) {
            out.addComponents(component(id, spoutIds.contains(id), commons.get(id), objects.get(id), conf,
                    metricsStream, eventLogStream));
        }
        return out.build();
    }

    /**
     * Only what the message needs: the naming rule is Rust's (egret_config::settings), applied at
     * submission; its refusal comes back as Storm's IllegalArgumentException ({@link Submitter}).
     */
    static void validateName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("Topology name 'null' is not valid. It can't be null");
        }
    }

    /** Every subscription must name an existing component, a stream it declares and fields of it. */
    private static void validateStructure(Map<String, ComponentCommon> commons) throws InvalidTopologyException {
        for (Map.Entry<String, ComponentCommon> e : commons.entrySet()) {
            String id = e.getKey();
            ComponentCommon common = e.getValue();
            if (common == null) {
                throw new InvalidTopologyException("Component '" + id + "' has no common part");
            }
            if (common.get_streams() != null) {
                for (String stream : common.get_streams().keySet()) {
                    if (Utils.isSystemId(stream)) {
                        throw new InvalidTopologyException(stream + " is not a valid stream id (component '"
                                + id + "').");
                    }
                }
            }
            if (common.get_inputs() == null) {
                continue;
            }
            for (Map.Entry<GlobalStreamId, Grouping> in : common.get_inputs().entrySet()) {
                String source = in.getKey().get_componentId();
                String stream = in.getKey().get_streamId();
                ComponentCommon sourceCommon = commons.get(source);
                if (sourceCommon == null) {
                    throw new InvalidTopologyException("Component: [" + id
                            + "] subscribes from non-existent component [" + source + "]");
                }
                StreamInfo info = sourceCommon.get_streams() == null ? null : sourceCommon.get_streams().get(stream);
                if (info == null) {
                    throw new InvalidTopologyException("Component: [" + id + "] subscribes from non-existent stream: ["
                            + stream + "] of component [" + source + "]");
                }
                Grouping g = in.getValue();
                if (g == null || !g.isSet()) {
                    throw new InvalidTopologyException("Component: [" + id + "] subscribes to stream: [" + stream
                            + "] of component [" + source + "] without a grouping");
                }
                if (g.is_set_fields()) {
                    List<String> missing = new ArrayList<>();
                    for (String f : g.get_fields()) {
                        if (!info.get_output_fields().contains(f)) {
                            missing.add(f);
                        }
                    }
                    if (!missing.isEmpty()) {
                        throw new InvalidTopologyException("Component: [" + id + "] subscribes from stream: ["
                                + stream + "] of component [" + source + "] with non-existent fields: " + missing
                                + " (the stream declares " + info.get_output_fields() + ")");
                    }
                }
            }
        }
    }

    private static Component component(String id, boolean spout, ComponentCommon common, ComponentObject object,
            Map<String, Object> topoConf, boolean metricsStream, boolean eventLogStream)
            throws InvalidTopologyException {
        if (object == null || !object.is_set_serialized_java()) {
            throw new InvalidTopologyException("Component '" + id
                    + "' is not a Java-serialized object (shell and JavaObject components are not supported)");
        }
        Map<String, Object> ownConf;
        try {
            ownConf = ConfigJson.parse(common.get_json_conf());
        } catch (IllegalArgumentException e) {
            throw new InvalidTopologyException("Component '" + id + "' has an invalid configuration: "
                    + e.getMessage());
        }
        Map<String, Object> merged = new java.util.HashMap<>(topoConf);
        merged.putAll(ownConf);

        int parallelism = common.is_set_parallelism_hint() ? common.get_parallelism_hint() : 1;
        if (parallelism < 1) {
            throw new InvalidTopologyException("Component '" + id + "' has a parallelism of " + parallelism
                    + "; it must be positive");
        }
        int numTasks;
        Integer maxParallelism;
        try {
            numTasks = ObjectReader.getInt(merged.get(Config.TOPOLOGY_TASKS), parallelism);
            Object max = merged.get(Config.TOPOLOGY_MAX_TASK_PARALLELISM);
            maxParallelism = max == null ? null : ObjectReader.getInt(max);
        } catch (IllegalArgumentException e) {
            throw new InvalidTopologyException("Component '" + id + "': " + e.getMessage());
        }
        if (maxParallelism != null) {
            numTasks = Math.min(numTasks, maxParallelism);
        }
        if (numTasks < 1) {
            throw new InvalidTopologyException("Component '" + id + "' has " + numTasks
                    + " tasks; it needs at least one");
        }
        int executors = Math.min(parallelism, numTasks);
        ownConf.put(Config.TOPOLOGY_TASKS, (long) numTasks);

        double memory = number(id, ownConf, Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB);
        double cpu = number(id, ownConf, Config.TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT);

        Component.Builder b = Component.newBuilder()
                .setId(id)
                .setKind(spout ? ComponentKind.COMPONENT_KIND_SPOUT : ComponentKind.COMPONENT_KIND_BOLT)
                .setSerializedJava(ByteString.copyFrom(object.get_serialized_java()))
                .setParallelism(executors)
                .setNumTasks(numTasks)
                .setConfigJson(ConfigJson.toJson(ownConf))
                .setMemoryLoadMb(memory)
                .setCpuLoad(cpu);
        TreeMap<String, StreamInfo> streams = new TreeMap<>();
        if (common.get_streams() != null) {
            streams.putAll(common.get_streams());
        }
        if (metricsStream) {
            streams.put(Constants.METRICS_STREAM_ID, new StreamInfo(MetricsConsumers.STREAM_FIELDS, false));
        }
        if (eventLogStream) {
            streams.put(EventLoggers.STREAM_ID, new StreamInfo(EventLoggers.STREAM_FIELDS, false));
        }
        streams.forEach((streamId, info) -> b.addStreams(StreamDef.newBuilder()
                .setId(streamId)
                .addAllFields(info.get_output_fields() == null ? List.of() : info.get_output_fields())
                .setDirect(info.is_direct())
                .build()));
        if (common.get_inputs() != null) {
            for (Map.Entry<GlobalStreamId, Grouping> in : common.get_inputs().entrySet()) {
                b.addInputs(InputDef.newBuilder()
                        .setComponent(in.getKey().get_componentId())
                        .setStream(in.getKey().get_streamId())
                        .setGrouping(grouping(id, in.getValue()))
                        .build());
            }
        }
        return b.build();
    }

    private static double number(String id, Map<String, Object> conf, String key) throws InvalidTopologyException {
        Object v = conf.get(key);
        if (v == null) {
            return 0.0;
        }
        try {
            double d = ObjectReader.getDouble(v);
            if (d < 0 || !Double.isFinite(d)) {
                throw new IllegalArgumentException(key + " must be a non-negative number, not " + v);
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new InvalidTopologyException("Component '" + id + "': " + e.getMessage());
        }
    }

    /** Converts Storm's grouping union to the wire's. */
    static dev.egret.proto.Grouping grouping(String id, Grouping g) throws InvalidTopologyException {
        dev.egret.proto.Grouping.Builder b = dev.egret.proto.Grouping.newBuilder();
        Empty empty = Empty.getDefaultInstance();
        switch (g.getSetField()) {
            case FIELDS:
                return b.setFields(FieldList.newBuilder().addAllFields(g.get_fields())).build();
            case SHUFFLE:
                return b.setShuffle(empty).build();
            case ALL:
                return b.setAll(empty).build();
            case NONE:
                return b.setNone(empty).build();
            case DIRECT:
                return b.setDirect(empty).build();
            case CUSTOM_SERIALIZED:
                return b.setCustomSerialized(ByteString.copyFrom(g.get_custom_serialized())).build();
            case LOCAL_OR_SHUFFLE:
                return b.setLocalOrShuffle(empty).build();
            default:
                throw new InvalidTopologyException("Component '" + id + "' uses a " + g.getSetField()
                        + " grouping, which Egret does not support");
        }
    }
}

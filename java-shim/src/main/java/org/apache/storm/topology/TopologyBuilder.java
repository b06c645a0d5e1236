package org.apache.storm.topology;

import dev.egret.runtime.ConfigJson;
import java.io.NotSerializableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.storm.Config;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.NullStruct;
import org.apache.storm.generated.SharedMemory;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.grouping.PartialKeyGrouping;
import org.apache.storm.lambda.LambdaBiConsumerBolt;
import org.apache.storm.lambda.LambdaConsumerBolt;
import org.apache.storm.lambda.LambdaSpout;
import org.apache.storm.lambda.SerializableBiConsumer;
import org.apache.storm.lambda.SerializableConsumer;
import org.apache.storm.lambda.SerializableSupplier;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.state.State;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.utils.Utils;

/**
 * Builds a {@link StormTopology} from spouts, bolts and their subscriptions.
 *
 * <p>As in Storm: each component's {@code getComponentConfiguration()} is captured when it
 * is added (as the component's JSON config, later extended by the declarer's setters);
 * {@link #createTopology()} evaluates {@code declareOutputFields} and Java-serializes every
 * component object (an {@link IBasicBolt} wrapped in a {@link BasicBoltExecutor}), so each
 * task later deserializes its own copy. Ids must be unique across spouts and bolts.
 */
public class TopologyBuilder {
    /** The storm-client version this API mirrors. */
    public static final String STORM_VERSION = "2.8.4";

    private final Map<String, IRichBolt> bolts = new HashMap<>();
    private final Map<String, IRichSpout> spouts = new HashMap<>();
    private final Map<String, ComponentCommon> commons = new HashMap<>();
    private final Map<String, Set<String>> componentToSharedMemory = new HashMap<>();
    private final Map<String, SharedMemory> sharedMemory = new HashMap<>();
    /** A stateful bolt was added: createTopology wires the checkpoint spout and stream. */
    private boolean hasStatefulBolt = false;

    public TopologyBuilder() {
    }

    /**
     * Serializes every component and returns the topology.
     *
     * @throws IllegalStateException if a component cannot be Java-serialized, naming the
     *     component and the offending class
     */
    public StormTopology createTopology() {
        Map<String, Bolt> boltSpecs = new HashMap<>();
        Map<String, SpoutSpec> spoutSpecs = new HashMap<>();
        if (hasStatefulBolt && !spouts.containsKey(CheckpointSpout.CHECKPOINT_COMPONENT_ID)) {
            setSpout(CheckpointSpout.CHECKPOINT_COMPONENT_ID, new CheckpointSpout(), 1);
        }
        for (Map.Entry<String, IRichBolt> e : bolts.entrySet()) {
            String id = e.getKey();
            IRichBolt bolt = e.getValue();
            if (hasStatefulBolt && !(bolt instanceof StatefulBoltExecutor)) {
                bolt = new CheckpointTupleForwarder(bolt);
            }
            ComponentCommon common = getComponentCommon(id, bolt);
            if (hasStatefulBolt) {
                addCheckpointInputs(common);
            }
            boltSpecs.put(id, new Bolt(ComponentObject.serialized_java(serialize("Bolt", id, bolt)), common));
        }
        for (Map.Entry<String, IRichSpout> e : spouts.entrySet()) {
            String id = e.getKey();
            IRichSpout spout = e.getValue();
            ComponentCommon common = getComponentCommon(id, spout);
            spoutSpecs.put(id, new SpoutSpec(ComponentObject.serialized_java(serialize("Spout", id, spout)), common));
        }
        StormTopology topology = new StormTopology(spoutSpecs, boltSpecs, new HashMap<>());
        topology.set_storm_version(STORM_VERSION);
        topology.set_jdk_version(System.getProperty("java.version"));
        if (!workerHooks.isEmpty()) {
            topology.set_worker_hooks(new ArrayList<>(workerHooks));
        }
        if (!componentToSharedMemory.isEmpty()) {
            Map<String, Set<String>> copy = new HashMap<>();
            componentToSharedMemory.forEach((k, v) -> copy.put(k, new HashSet<>(v)));
            topology.set_component_to_shared_memory(copy);
            topology.set_shared_memory(new HashMap<>(sharedMemory));
        }
        return topology;
    }

    /**
     * Storm's checkpoint wiring: each bolt takes {@code $checkpoint} (all grouping) from the
     * checkpoint spout in place of every spout it reads, and from every bolt it reads.
     */
    private void addCheckpointInputs(ComponentCommon common) {
        Set<GlobalStreamId> checkpointInputs = new LinkedHashSet<>();
        for (GlobalStreamId input : common.get_inputs().keySet()) {
            String source = input.get_componentId();
            if (spouts.containsKey(source)) {
                checkpointInputs.add(new GlobalStreamId(CheckpointSpout.CHECKPOINT_COMPONENT_ID,
                        CheckpointSpout.CHECKPOINT_STREAM_ID));
            } else {
                checkpointInputs.add(new GlobalStreamId(source, CheckpointSpout.CHECKPOINT_STREAM_ID));
            }
        }
        for (GlobalStreamId id : checkpointInputs) {
            common.put_to_inputs(id, Grouping.all(new NullStruct()));
        }
    }

    private static byte[] serialize(String kind, String id, Object component) {
        try {
            return Utils.javaSerialize(component);
        } catch (RuntimeException e) {
            Throwable cause = e.getCause();
            if (cause instanceof NotSerializableException) {
                String type = cause.getMessage();
                throw new IllegalStateException(kind + " '" + id + "' contains a non-serializable field of type "
                        + type + ", which was instantiated prior to topology creation. " + type
                        + " should be instantiated within the " + (kind.equals("Spout") ? "open" : "prepare")
                        + " method of '" + id + "' at the earliest.", e);
            }
            throw new IllegalStateException(kind + " '" + id + "' (" + component.getClass().getName()
                    + ") cannot be Java-serialized: " + (cause == null ? e : cause), e);
        }
    }

    private ComponentCommon getComponentCommon(String id, IComponent component) {
        ComponentCommon ret = new ComponentCommon(commons.get(id));
        // Keep the declaration order of the inputs (the copy constructor does not).
        ret.set_inputs(new LinkedHashMap<>(commons.get(id).get_inputs()));
        OutputFieldsGetter getter = new OutputFieldsGetter();
        component.declareOutputFields(getter);
        ret.set_streams(getter.getFieldsDeclaration());
        return ret;
    }

    public BoltDeclarer setBolt(String id, IRichBolt bolt) throws IllegalArgumentException {
        return setBolt(id, bolt, null);
    }

    public BoltDeclarer setBolt(String id, IRichBolt bolt, Number parallelismHint) throws IllegalArgumentException {
        validateUnusedId(id);
        initCommon(id, bolt, parallelismHint);
        bolts.put(id, bolt);
        return new BoltGetter(id);
    }

    public BoltDeclarer setBolt(String id, IBasicBolt bolt) throws IllegalArgumentException {
        return setBolt(id, bolt, null);
    }

    public BoltDeclarer setBolt(String id, IBasicBolt bolt, Number parallelismHint) throws IllegalArgumentException {
        return setBolt(id, new BasicBoltExecutor(bolt), parallelismHint);
    }

    public BoltDeclarer setBolt(String id, SerializableBiConsumer<Tuple, BasicOutputCollector> biConsumer,
            String... fields) throws IllegalArgumentException {
        return setBolt(id, biConsumer, null, fields);
    }

    public BoltDeclarer setBolt(String id, SerializableBiConsumer<Tuple, BasicOutputCollector> biConsumer,
            Number parallelismHint, String... fields) throws IllegalArgumentException {
        return setBolt(id, new LambdaBiConsumerBolt(biConsumer, fields), parallelismHint);
    }

    public BoltDeclarer setBolt(String id, SerializableConsumer<Tuple> consumer) throws IllegalArgumentException {
        return setBolt(id, consumer, null);
    }

    public BoltDeclarer setBolt(String id, SerializableConsumer<Tuple> consumer, Number parallelismHint)
            throws IllegalArgumentException {
        return setBolt(id, new LambdaConsumerBolt(consumer), parallelismHint);
    }

    /** A windowed bolt, run in a {@link WindowedBoltExecutor}. */
    public BoltDeclarer setBolt(String id, IWindowedBolt bolt) throws IllegalArgumentException {
        return setBolt(id, bolt, null);
    }

    public BoltDeclarer setBolt(String id, IWindowedBolt bolt, Number parallelismHint)
            throws IllegalArgumentException {
        return setBolt(id, new WindowedBoltExecutor(bolt), parallelismHint);
    }

    /**
     * A stateful bolt, run in a {@link StatefulBoltExecutor}. The topology then gets the
     * checkpoint spout and every bolt the checkpoint stream (see {@link #createTopology()}).
     */
    public <T extends State> BoltDeclarer setBolt(String id, IStatefulBolt<T> bolt) throws IllegalArgumentException {
        return setBolt(id, bolt, null);
    }

    public <T extends State> BoltDeclarer setBolt(String id, IStatefulBolt<T> bolt, Number parallelismHint)
            throws IllegalArgumentException {
        hasStatefulBolt = true;
        return setBolt(id, new StatefulBoltExecutor<T>(bolt), parallelismHint);
    }

    /**
     * A stateful windowed bolt, run in a {@link StatefulWindowedBoltExecutor} (or, with
     * persistent windows, a {@link PersistentWindowedBoltExecutor}) inside a {@link StatefulBoltExecutor}.
     */
    public <T extends State> BoltDeclarer setBolt(String id, IStatefulWindowedBolt<T> bolt)
            throws IllegalArgumentException {
        return setBolt(id, bolt, null);
    }

    public <T extends State> BoltDeclarer setBolt(String id, IStatefulWindowedBolt<T> bolt, Number parallelismHint)
            throws IllegalArgumentException {
        hasStatefulBolt = true;
        IStatefulBolt<T> executor = bolt.isPersistent() ? new PersistentWindowedBoltExecutor<>(bolt)
                : new StatefulWindowedBoltExecutor<>(bolt);
        return setBolt(id, new StatefulBoltExecutor<T>(executor), parallelismHint);
    }

    public SpoutDeclarer setSpout(String id, IRichSpout spout) throws IllegalArgumentException {
        return setSpout(id, spout, null);
    }

    public SpoutDeclarer setSpout(String id, IRichSpout spout, Number parallelismHint) throws IllegalArgumentException {
        validateUnusedId(id);
        initCommon(id, spout, parallelismHint);
        spouts.put(id, spout);
        return new SpoutGetter(id);
    }

    public SpoutDeclarer setSpout(String id, SerializableSupplier<?> supplier) throws IllegalArgumentException {
        return setSpout(id, supplier, null);
    }

    public SpoutDeclarer setSpout(String id, SerializableSupplier<?> supplier, Number parallelismHint)
            throws IllegalArgumentException {
        return setSpout(id, new LambdaSpout(supplier), parallelismHint);
    }

    private void validateUnusedId(String id) {
        if (id == null) {
            throw new IllegalArgumentException("Component id cannot be null");
        }
        if (bolts.containsKey(id)) {
            throw new IllegalArgumentException("Bolt has already been declared for id " + id);
        }
        if (spouts.containsKey(id)) {
            throw new IllegalArgumentException("Spout has already been declared for id " + id);
        }
    }

    private void initCommon(String id, IComponent component, Number parallelism) throws IllegalArgumentException {
        ComponentCommon common = new ComponentCommon();
        common.set_inputs(new LinkedHashMap<>());
        if (parallelism != null) {
            int dop = parallelism.intValue();
            if (dop < 1) {
                throw new IllegalArgumentException("Parallelism must be positive.");
            }
            common.set_parallelism_hint(dop);
        }
        Map<String, Object> conf = component.getComponentConfiguration();
        if (conf != null) {
            try {
                common.set_json_conf(ConfigJson.toJson(conf));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Component '" + id + "' (" + component.getClass().getName()
                        + "): " + e.getMessage(), e);
            }
        }
        commons.put(id, common);
    }

    /** Component configuration set through a declarer, merged into the component's JSON config. */
    protected class ConfigGetter<T extends ComponentConfigurationDeclarer> extends BaseConfigurationDeclarer<T> {
        private final String id;

        public ConfigGetter(String id) {
            this.id = id;
        }

        @Override
        @SuppressWarnings("unchecked")
        public T addConfigurations(Map<String, Object> conf) {
            if (conf != null) {
                if (conf.containsKey(Config.TOPOLOGY_KRYO_REGISTER)) {
                    throw new IllegalArgumentException("Cannot set serializations for a component using fluent API");
                }
                if (!conf.isEmpty()) {
                    ComponentCommon common = commons.get(id);
                    Map<String, Object> merged = ConfigJson.parse(common.get_json_conf());
                    merged.putAll(conf);
                    try {
                        common.set_json_conf(ConfigJson.toJson(merged));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("Component '" + id + "': " + e.getMessage(), e);
                    }
                }
            }
            return (T) this;
        }

        @Override
        public Map<String, Object> getComponentConfiguration() {
            return ConfigJson.parse(commons.get(id).get_json_conf());
        }

        @Override
        @SuppressWarnings("unchecked")
        public T addSharedMemory(SharedMemory request) {
            SharedMemory known = sharedMemory.get(request.get_name());
            if (known != null && !known.equals(request)) {
                throw new IllegalArgumentException(
                        "Cannot have multiple different shared memory regions with the same name");
            }
            sharedMemory.put(request.get_name(), request);
            componentToSharedMemory.computeIfAbsent(id, k -> new HashSet<>()).add(request.get_name());
            return (T) this;
        }

        protected String getComponentId() {
            return id;
        }
    }

    /** Declarer of a spout. */
    protected class SpoutGetter extends ConfigGetter<SpoutDeclarer> implements SpoutDeclarer {
        public SpoutGetter(String id) {
            super(id);
        }
    }

    /** Declarer of a bolt: its subscriptions and configuration. */
    protected class BoltGetter extends ConfigGetter<BoltDeclarer> implements BoltDeclarer {
        private final String boltId;

        public BoltGetter(String boltId) {
            super(boltId);
            this.boltId = boltId;
        }

        @Override
        public BoltDeclarer fieldsGrouping(String componentId, Fields fields) {
            return fieldsGrouping(componentId, Utils.DEFAULT_STREAM_ID, fields);
        }

        @Override
        public BoltDeclarer fieldsGrouping(String componentId, String streamId, Fields fields) {
            return grouping(componentId, streamId, Grouping.fields(fields.toList()));
        }

        @Override
        public BoltDeclarer globalGrouping(String componentId) {
            return globalGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer globalGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.fields(new ArrayList<>()));
        }

        @Override
        public BoltDeclarer shuffleGrouping(String componentId) {
            return shuffleGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer shuffleGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.shuffle(new NullStruct()));
        }

        @Override
        public BoltDeclarer localOrShuffleGrouping(String componentId) {
            return localOrShuffleGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer localOrShuffleGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.local_or_shuffle(new NullStruct()));
        }

        @Override
        public BoltDeclarer noneGrouping(String componentId) {
            return noneGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer noneGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.none(new NullStruct()));
        }

        @Override
        public BoltDeclarer allGrouping(String componentId) {
            return allGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer allGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.all(new NullStruct()));
        }

        @Override
        public BoltDeclarer directGrouping(String componentId) {
            return directGrouping(componentId, Utils.DEFAULT_STREAM_ID);
        }

        @Override
        public BoltDeclarer directGrouping(String componentId, String streamId) {
            return grouping(componentId, streamId, Grouping.direct(new NullStruct()));
        }

        @Override
        public BoltDeclarer partialKeyGrouping(String componentId, Fields fields) {
            return customGrouping(componentId, new PartialKeyGrouping(fields));
        }

        @Override
        public BoltDeclarer partialKeyGrouping(String componentId, String streamId, Fields fields) {
            return customGrouping(componentId, streamId, new PartialKeyGrouping(fields));
        }

        @Override
        public BoltDeclarer customGrouping(String componentId, CustomStreamGrouping grouping) {
            return customGrouping(componentId, Utils.DEFAULT_STREAM_ID, grouping);
        }

        @Override
        public BoltDeclarer customGrouping(String componentId, String streamId, CustomStreamGrouping grouping) {
            byte[] serialized;
            try {
                serialized = Utils.javaSerialize(grouping);
            } catch (RuntimeException e) {
                throw new IllegalStateException("Custom grouping " + grouping.getClass().getName() + " of bolt '"
                        + boltId + "' on " + componentId + ":" + streamId + " cannot be Java-serialized: "
                        + (e.getCause() == null ? e : e.getCause()), e);
            }
            return grouping(componentId, streamId, Grouping.custom_serialized(serialized));
        }

        @Override
        public BoltDeclarer grouping(GlobalStreamId id, Grouping grouping) {
            return grouping(id.get_componentId(), id.get_streamId(), grouping);
        }

        private BoltDeclarer grouping(String componentId, String streamId, Grouping grouping) {
            commons.get(boltId).put_to_inputs(new GlobalStreamId(componentId, streamId), grouping);
            return this;
        }
    }

    /** Worker hooks, Java-serialized, for StormTopology.worker_hooks. */
    private final java.util.List<java.nio.ByteBuffer> workerHooks = new ArrayList<>();

    /**
     * Adds a hook started once per worker (in Egret: once per instance JVM) before its
     * tasks are opened or prepared, and shut down with it. The hook is serialized now.
     */
    public void addWorkerHook(org.apache.storm.hooks.IWorkerHook workerHook) {
        if (workerHook == null) {
            throw new IllegalArgumentException("WorkerHook must not be null.");
        }
        workerHooks.add(java.nio.ByteBuffer.wrap(Utils.javaSerialize(workerHook)));
    }
}

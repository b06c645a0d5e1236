package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.Grouping;
import dev.egret.proto.InputDef;
import dev.egret.proto.Topology;
import dev.egret.runtime.ConfigJson;
import dev.egret.runtime.TopologyModel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.grouping.PartialKeyGrouping;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.BasicBoltExecutor;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class TopologyCaptureTest {

    private static Map<String, Object> conf() {
        Map<String, Object> conf = Submitter.mergeConfig(Utils.readDefaultConfig(), Map.of(), new Config(), Map.of());
        return conf;
    }

    private static StormTopology sample() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("words", new Components.WordSpout(), 2).setNumTasks(4);
        b.setBolt("b-exclaim", new Components.PassBolt("x"), 3).shuffleGrouping("words");
        b.setBolt("a-count", new Components.TickingCounter())
                .fieldsGrouping("b-exclaim", new Fields("word"))
                .directGrouping("words", "other")
                .addConfiguration("custom.key", "v")
                .setMemoryLoad(256)
                .setCPULoad(50);
        return b.createTopology();
    }

    private static Component component(Topology t, String id) {
        return t.getComponentsList().stream().filter(c -> c.getId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void componentsAreSortedWithTaskCounts() throws Exception {
        Topology t = TopologyCapture.capture("demo", conf(), sample());
        assertEquals("demo", t.getName());
        assertEquals(List.of("a-count", "b-exclaim", "words"),
                t.getComponentsList().stream().map(Component::getId).collect(Collectors.toList()));
        Component words = component(t, "words");
        assertEquals(ComponentKind.COMPONENT_KIND_SPOUT, words.getKind());
        assertEquals(2, words.getParallelism());
        assertEquals(4, words.getNumTasks());
        Component exclaim = component(t, "b-exclaim");
        assertEquals(ComponentKind.COMPONENT_KIND_BOLT, exclaim.getKind());
        assertEquals(3, exclaim.getParallelism());
        assertEquals(3, exclaim.getNumTasks());
        assertEquals(1, component(t, "a-count").getNumTasks());
        assertEquals(3L, ConfigJson.parse(exclaim.getConfigJson()).get(Config.TOPOLOGY_TASKS));

        TopologyModel model = TopologyModel.of(t);
        assertEquals(List.of(1), model.taskIds("a-count"));
        assertEquals(List.of(2, 3, 4), model.taskIds("b-exclaim"));
        assertEquals(List.of(5, 6, 7, 8), model.taskIds("words"));
        assertEquals("words", model.componentOf(8));
        assertEquals(2, model.taskIndex(7));
    }

    @Test
    void streamsAreSortedWithFieldsAndDirectFlag() throws Exception {
        Component words = component(TopologyCapture.capture("demo", conf(), sample()), "words");
        assertEquals(2, words.getStreamsCount());
        assertEquals("default", words.getStreams(0).getId());
        assertEquals(List.of("word"), words.getStreams(0).getFieldsList());
        assertFalse(words.getStreams(0).getDirect());
        assertEquals("other", words.getStreams(1).getId());
        assertEquals(List.of("a", "b"), words.getStreams(1).getFieldsList());
        assertTrue(words.getStreams(1).getDirect());
    }

    @Test
    void inputsKeepDeclarationOrderAndGroupings() throws Exception {
        Component count = component(TopologyCapture.capture("demo", conf(), sample()), "a-count");
        assertEquals(2, count.getInputsCount());
        InputDef first = count.getInputs(0);
        assertEquals("b-exclaim", first.getComponent());
        assertEquals("default", first.getStream());
        assertEquals(Grouping.KindCase.FIELDS, first.getGrouping().getKindCase());
        assertEquals(List.of("word"), first.getGrouping().getFields().getFieldsList());
        InputDef second = count.getInputs(1);
        assertEquals("other", second.getStream());
        assertEquals(Grouping.KindCase.DIRECT, second.getGrouping().getKindCase());
    }

    @Test
    void everyGroupingKindIsConverted() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        b.setBolt("b", new Components.PassBolt("b"))
                .globalGrouping("s")
                .allGrouping("s", "other");
        b.setBolt("c", new Components.PassBolt("c"))
                .noneGrouping("s")
                .localOrShuffleGrouping("b");
        b.setBolt("d", new Components.PassBolt("d"))
                .customGrouping("s", new Components.FirstTaskGrouping(42))
                .partialKeyGrouping("b", new Fields("word"));
        Topology t = TopologyCapture.capture("groupings", conf(), b.createTopology());

        Component bolt = component(t, "b");
        assertEquals(Grouping.KindCase.FIELDS, bolt.getInputs(0).getGrouping().getKindCase());
        assertTrue(bolt.getInputs(0).getGrouping().getFields().getFieldsList().isEmpty(), "global = empty fields");
        assertEquals(Grouping.KindCase.ALL, bolt.getInputs(1).getGrouping().getKindCase());
        Component c = component(t, "c");
        assertEquals(Grouping.KindCase.NONE, c.getInputs(0).getGrouping().getKindCase());
        assertEquals(Grouping.KindCase.LOCAL_OR_SHUFFLE, c.getInputs(1).getGrouping().getKindCase());

        Component d = component(t, "d");
        byte[] custom = d.getInputs(0).getGrouping().getCustomSerialized().toByteArray();
        Components.FirstTaskGrouping g = Utils.javaDeserialize(custom, Components.FirstTaskGrouping.class);
        assertEquals(42, g.marker);
        byte[] pkg = d.getInputs(1).getGrouping().getCustomSerialized().toByteArray();
        assertInstanceOf(PartialKeyGrouping.class, Utils.javaDeserialize(pkg, Object.class));

        // The model turns them back into Storm's groupings for the runtime.
        TopologyModel model = TopologyModel.of(t);
        assertTrue(model.targets("s").get("default").get("b").is_set_fields());
        assertTrue(model.targets("s").get("default").get("d").is_set_custom_serialized());
        assertTrue(model.targets("b").get("default").get("c").is_set_local_or_shuffle());
    }

    @Test
    void componentConfigMergesComponentAndDeclarer() throws Exception {
        Topology t = TopologyCapture.capture("demo", conf(), sample());
        Component count = component(t, "a-count");
        Map<String, Object> own = ConfigJson.parse(count.getConfigJson());
        assertEquals(3L, own.get(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS));
        assertEquals("v", own.get("custom.key"));
        assertEquals(256.0, count.getMemoryLoadMb());
        assertEquals(50.0, count.getCpuLoad());
        assertEquals(0.0, component(t, "words").getMemoryLoadMb(), "no request means the topology default");

        Map<String, Object> merged = TopologyModel.of(t).componentConfig("a-count");
        assertEquals(3L, merged.get(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS));
        assertEquals(30L, merged.get(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS), "topology config underneath");
    }

    @Test
    void basicBoltIsWrappedAndSerializedPerComponent() throws Exception {
        Topology t = TopologyCapture.capture("demo", conf(), sample());
        Object count = Utils.javaDeserialize(component(t, "a-count").getSerializedJava().toByteArray(), Object.class);
        assertInstanceOf(BasicBoltExecutor.class, count);
        Components.PassBolt exclaim = Utils.javaDeserialize(
                component(t, "b-exclaim").getSerializedJava().toByteArray(), Components.PassBolt.class);
        assertEquals("x", exclaim.tag);
    }

    @Test
    void maxTaskParallelismCapsTasks() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new TestWordSpout(false), 3);
        Component spout = TopologyCapture.capture("cap", conf(), b.createTopology()).getComponents(0);
        assertEquals(1, spout.getNumTasks());
        assertEquals(1, spout.getParallelism());
    }

    @Test
    void unknownComponentIsRefused() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        b.setBolt("printer", new Components.PassBolt("p")).shuffleGrouping("nope");
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> TopologyCapture.capture("bad", conf(), b.createTopology()));
        assertTrue(e.getMessage().contains("[printer]") && e.getMessage().contains("[nope]"), e.getMessage());
    }

    @Test
    void unknownStreamIsRefused() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        b.setBolt("printer", new Components.PassBolt("p")).shuffleGrouping("s", "missing");
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> TopologyCapture.capture("bad", conf(), b.createTopology()));
        assertTrue(e.getMessage().contains("[printer]") && e.getMessage().contains("[missing]")
                && e.getMessage().contains("[s]"), e.getMessage());
    }

    @Test
    void undeclaredGroupingFieldIsRefused() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        b.setBolt("counter", new Components.PassBolt("p")).fieldsGrouping("s", new Fields("wrod"));
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> TopologyCapture.capture("bad", conf(), b.createTopology()));
        assertTrue(e.getMessage().contains("[counter]") && e.getMessage().contains("wrod"), e.getMessage());
    }

    @Test
    void nonSerializableComponentNamesComponentAndClass() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        b.setBolt("bad-bolt", new Components.BadBolt()).shuffleGrouping("s");
        IllegalStateException e = assertThrows(IllegalStateException.class, b::createTopology);
        assertTrue(e.getMessage().contains("'bad-bolt'") && e.getMessage().contains("java.lang.Thread"),
                e.getMessage());
    }

    @Test
    void nonJsonConfigIsRefusedNamingTheKey() {
        Map<String, Object> c = conf();
        c.put("my.key", new Object());
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TopologyCapture.capture("t", c, b.createTopology()));
        assertTrue(e.getMessage().contains("my.key"), e.getMessage());
    }

    @Test
    void badConfigValueIsRefused() {
        Map<String, Object> c = conf();
        c.put(Config.TOPOLOGY_WORKERS, "many");
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TopologyCapture.capture("t", c, b.createTopology()));
        assertTrue(e.getMessage().contains(Config.TOPOLOGY_WORKERS), e.getMessage());
    }

    @Test
    void structuralMistakesAreRefused() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Components.WordSpout());
        assertThrows(IllegalArgumentException.class, () -> b.setBolt("s", new Components.PassBolt("dup")));
        assertThrows(IllegalArgumentException.class, () -> b.setBolt("z", new Components.PassBolt("z"), 0));
        assertThrows(IllegalArgumentException.class,
                () -> b.setBolt("k", new Components.PassBolt("k")).addConfiguration(Config.TOPOLOGY_KRYO_REGISTER, "x"));

        TopologyBuilder sys = new TopologyBuilder();
        sys.setSpout("__acker", new Components.WordSpout());
        assertThrows(InvalidTopologyException.class, () -> TopologyCapture.capture("t", conf(), sys.createTopology()));

        TopologyBuilder noSpout = new TopologyBuilder();
        noSpout.setBolt("b", new Components.PassBolt("b"));
        assertThrows(InvalidTopologyException.class,
                () -> TopologyCapture.capture("t", conf(), noSpout.createTopology()));

        TopologyBuilder ok = new TopologyBuilder();
        ok.setSpout("s", new Components.WordSpout());
        // Names follow one rule, Rust's (egret_config::settings::validate_topology_name, tested
        // there and end to end in tests/tests/settings.rs): the capture does not apply its own.
        assertEquals("a/b", TopologyCapture.capture("a/b", conf(), ok.createTopology()).getName());
        assertThrows(IllegalArgumentException.class, () -> TopologyCapture.capture(null, conf(), ok.createTopology()));
    }

    @Test
    void configMergeOrderIsDefaultsClusterUserCommandLine() {
        Map<String, Object> defaults = new HashMap<>(Map.of("a", 1, "b", 1, "c", 1, "d", 1));
        Map<String, Object> cluster = Map.of("b", 2, "c", 2, "d", 2);
        Map<String, Object> user = Map.of("c", 3, "d", 3);
        Map<String, Object> cmd = Map.of("d", 4);
        Map<String, Object> merged = Submitter.mergeConfig(defaults, cluster, user, cmd);
        assertEquals(Map.of("a", 1, "b", 2, "c", 3, "d", 4), merged);
    }

    @Test
    void commandLineOptionsParseJsonElseString() {
        String old = System.getProperty("storm.options");
        try {
            System.setProperty("storm.options",
                    "topology.workers%3D2,x%3Da%2Cb%20c,topology.debug%3Dtrue,r%3D0.5,n%3D3%20abc");
            Map<String, Object> opts = Utils.readCommandLineOpts();
            assertEquals(2L, opts.get("topology.workers"));
            assertEquals("a,b c", opts.get("x"));
            assertEquals(true, opts.get("topology.debug"));
            assertEquals(0.5, opts.get("r"));
            assertEquals("3 abc", opts.get("n"));
        } finally {
            if (old == null) {
                System.clearProperty("storm.options");
            } else {
                System.setProperty("storm.options", old);
            }
        }
    }

    @Test
    void defaultsYamlIsOnTheClasspath() {
        Map<String, Object> d = Utils.readDefaultConfig();
        assertEquals(1, d.get(Config.TOPOLOGY_WORKERS));
        assertEquals(30, d.get(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS));
        assertTrue(d.containsKey(Config.TOPOLOGY_ACKER_EXECUTORS));
        assertEquals(null, d.get(Config.TOPOLOGY_ACKER_EXECUTORS));
        assertEquals(false, d.get(Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION));
        assertEquals(128.0, d.get(Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB));
    }
}

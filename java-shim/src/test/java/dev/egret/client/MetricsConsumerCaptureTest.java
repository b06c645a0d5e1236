package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.metrics.MetricsConsumerBolt;
import dev.egret.proto.Component;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.proto.Topology;
import dev.egret.runtime.TopologyModel;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.LoggingMetricsConsumer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/** Metrics consumers registered by config become system bolts, as Storm adds them. */
class MetricsConsumerCaptureTest {

    private static StormTopology sample() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("words", new Components.WordSpout());
        b.setBolt("exclaim", new Components.PassBolt("x"), 2).shuffleGrouping("words");
        return b.createTopology();
    }

    private static Component component(Topology t, String id) {
        return t.getComponentsList().stream().filter(c -> c.getId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void eachRegistrationIsAComponentSubscribedToEveryMetricsStream() throws Exception {
        Config user = new Config();
        user.registerMetricsConsumer(LoggingMetricsConsumer.class);
        user.registerMetricsConsumer(LoggingMetricsConsumer.class, Map.of("k", "v"), 3);
        Map<String, Object> conf = Submitter.mergeConfig(Utils.readDefaultConfig(), Map.of(), user, Map.of());
        Topology t = TopologyCapture.capture("m", conf, sample());

        String id = "__metrics_org.apache.storm.metric.LoggingMetricsConsumer";
        assertEquals(List.of(id, id + "#2", "exclaim", "words"),
                t.getComponentsList().stream().map(Component::getId).collect(Collectors.toList()));
        Component first = component(t, id);
        assertEquals(1, first.getParallelism());
        assertEquals(1, first.getNumTasks());
        Component second = component(t, id + "#2");
        assertEquals(3, second.getParallelism());
        assertEquals(3, second.getNumTasks());
        for (Component c : List.of(first, second)) {
            assertEquals(List.of("exclaim:__metrics", "words:__metrics"), c.getInputsList().stream()
                    .map(i -> i.getComponent() + ":" + i.getStream()).sorted().collect(Collectors.toList()));
            for (InputDef in : c.getInputsList()) {
                assertTrue(in.getGrouping().hasShuffle());
            }
        }
        for (Component c : t.getComponentsList()) {
            StreamDef s = c.getStreamsList().stream().filter(x -> x.getId().equals("__metrics")).findFirst()
                    .orElseThrow(() -> new AssertionError(c.getId() + " lacks __metrics"));
            assertEquals(List.of("task-info", "data-points"), s.getFieldsList());
        }
        MetricsConsumerBolt bolt = assertInstanceOf(MetricsConsumerBolt.class,
                Utils.javaDeserialize(second.getSerializedJava().toByteArray(), Object.class));
        assertEquals(LoggingMetricsConsumer.class.getCanonicalName(), bolt.consumerClassName());

        // Task ids include the consumers, in sorted component order.
        TopologyModel model = TopologyModel.of(t);
        assertEquals(List.of(1), model.taskIds(id));
        assertEquals(List.of(2, 3, 4), model.taskIds(id + "#2"));
        assertEquals(List.of(5, 6), model.taskIds("exclaim"));
        assertEquals(List.of(7), model.taskIds("words"));
    }

    @Test
    void withoutConsumersNothingIsAdded() throws Exception {
        Map<String, Object> conf = Submitter.mergeConfig(Utils.readDefaultConfig(), Map.of(), new Config(), Map.of());
        Topology t = TopologyCapture.capture("m", conf, sample());
        assertEquals(2, t.getComponentsCount());
        assertTrue(t.getComponentsList().stream().flatMap(c -> c.getStreamsList().stream())
                .noneMatch(s -> s.getId().equals("__metrics")));
    }

    @Test
    void aMalformedRegistrationIsRefused() {
        Config user = new Config();
        user.put(Config.TOPOLOGY_METRICS_CONSUMER_REGISTER, List.of(Map.of("parallelism.hint", 1)));
        Map<String, Object> conf = Submitter.mergeConfig(Utils.readDefaultConfig(), Map.of(), user, Map.of());
        assertThrows(InvalidTopologyException.class, () -> TopologyCapture.capture("m", conf, sample()));
    }
}

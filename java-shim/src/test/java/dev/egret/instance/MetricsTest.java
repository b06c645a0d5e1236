package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.client.Submitter;
import dev.egret.client.TopologyCapture;
import dev.egret.metrics.TaskMetrics;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.StatsReport;
import dev.egret.proto.TaskStatsDelta;
import dev.egret.proto.Topology;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import com.codahale.metrics.Counter;
import org.apache.storm.Config;
import org.apache.storm.metric.api.CountMetric;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metric.api.IMetricsConsumer.TaskInfo;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Metrics end to end in process: a consumer registered by config becomes a component; a
 * bolt instance (against a fake stream manager) reports exact statistics to the stream
 * manager and emits its built-in, v1 and v2 metrics on {@code __metrics} to the consumer's
 * task; the consumer's instance hands them to the user's consumer class.
 */
class MetricsTest {
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<DataPoint> POINTS = new CopyOnWriteArrayList<>();

    /** The user's consumer. */
    public static final class RecordingConsumer implements IMetricsConsumer {
        @Override
        public void prepare(Map<String, Object> conf, Object arg, TopologyContext context, IErrorReporter r) {
            RECEIVED.add("prepare " + arg + " task " + context.getThisTaskId());
        }

        @Override
        public void handleDataPoints(TaskInfo info, Collection<DataPoint> points) {
            RECEIVED.add("points from " + info.srcComponentId + ":" + info.srcTaskId + " every "
                    + info.updateIntervalSecs);
            POINTS.addAll(points);
        }

        @Override
        public void cleanup() {
        }
    }

    public static final class Spout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word"));
        }
    }

    /** Registers v1 and v2 metrics, counts its tuples in both, emits and acks each. */
    public static final class MeteredBolt extends BaseRichBolt {
        private transient OutputCollector collector;
        private transient CountMetric count;
        private transient Counter v2;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.count = context.registerMetric("my-count", new CountMetric(), 1);
            this.v2 = context.registerCounter("my-v2-count");
        }

        @Override
        public void execute(Tuple input) {
            count.incr();
            v2.inc();
            collector.emit(input, new Values(input.getString(0) + "!"));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word"));
        }
    }

    private Path dir;
    private FakeSm sm;

    @BeforeEach
    void setUp() throws Exception {
        RECEIVED.clear();
        POINTS.clear();
        dir = Files.createTempDirectory("egret-metrics-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        sm.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static Topology topology() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Spout());
        b.setBolt("bolt", new MeteredBolt()).shuffleGrouping("spout");
        Config user = new Config();
        user.registerMetricsConsumer(RecordingConsumer.class, "the-arg", 1);
        user.put(Config.TOPOLOGY_BUILTIN_METRICS_BUCKET_SIZE_SECS, 1);
        user.put(Config.TOPOLOGY_ENABLE_V2_METRICS_TICK, true);
        user.put(Config.TOPOLOGY_V2_METRICS_TICK_INTERVAL_SECONDS, 1);
        user.put("egret.stats.interval.secs", 1);
        Map<String, Object> conf = Submitter.mergeConfig(user);
        return TopologyCapture.capture("metrics", conf, b.createTopology()).toBuilder().setId("metrics-1-1").build();
    }

    /** Waits for the first message of a kind. */
    private static InstanceToStreamManager await(FakeSm.Conn c, InstanceToStreamManager.MessageCase kind,
                                                 List<TupleData> tuples) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (System.nanoTime() < deadline) {
            InstanceToStreamManager m = c.poll(100);
            if (m == null) {
                continue;
            }
            if (m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES && tuples != null) {
                tuples.addAll(m.getTuples().getTuplesList());
            }
            if (m.getMessageCase() == kind) {
                return m;
            }
        }
        throw new AssertionError("no " + kind + " message");
    }

    @Test
    void aConsumerRegisteredByConfigReceivesBuiltinAndUserMetrics() throws Exception {
        Topology topo = topology();
        String consumerId = "__metrics_" + RecordingConsumer.class.getCanonicalName();
        TopologyView view = new TopologyView(topo);
        // Storm's task ids: sorted component ids, the consumer (starting with "__") first.
        assertEquals(List.of(1), view.tasksOf(consumerId));
        assertEquals(List.of(2), view.tasksOf("bolt"));
        assertEquals(List.of(3), view.tasksOf("spout"));

        sm.startInstance("bolt-0", 0);
        FakeSm.Conn bolt = sm.accept("bolt-0");
        bolt.assign(FakeSm.assignment(topo, dir, "bolt-0", "bolt", 2));
        bolt.awaitReady();
        for (int i = 0; i < 3; i++) {
            bolt.sendTuples(FakeSm.tuple(2, 3, List.of("w" + i), 0L));
        }

        // Exact statistics to the stream manager (deltas; summed over reports in case the
        // interval cut through the three tuples).
        Map<String, Long> executed = new HashMap<>();
        Map<String, Long> acked = new HashMap<>();
        Map<String, Long> emitted = new HashMap<>();
        List<TupleData> tuples = new ArrayList<>();
        double executeMs = 0;
        while (executed.getOrDefault("spout:default", 0L) < 3) {
            StatsReport r = await(bolt, InstanceToStreamManager.MessageCase.STATS, tuples).getStats();
            assertEquals("bolt-0", r.getInstanceId());
            assertTrue(r.getTimestampMs() > 0);
            for (TaskStatsDelta d : r.getTasksList()) {
                assertEquals(2, d.getTaskId());
                d.getExecutedMap().forEach((k, v) -> executed.merge(k, v, Long::sum));
                d.getAckedMap().forEach((k, v) -> acked.merge(k, v, Long::sum));
                d.getEmittedMap().forEach((k, v) -> emitted.merge(k, v, Long::sum));
                executeMs += d.getExecuteMsSumMap().getOrDefault("spout:default", 0.0);
                assertTrue(d.getCompleteMsSumMap().isEmpty(), "bolts have no complete latency");
            }
        }
        assertEquals(Map.of("spout:default", 3L), executed);
        assertEquals(Map.of("spout:default", 3L), acked);
        assertEquals(Map.of("default", 3L), emitted, "the __metrics tuples are not counted");
        assertTrue(executeMs >= 0);

        // The bucket's tuple on __metrics, to the consumer's task.
        TupleData metricsTuple = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (metricsTuple == null && System.nanoTime() < deadline) {
            for (TupleData td : tuples) {
                if (td.getStream().equals("__metrics") && metricsTuple == null
                        && !"__system".equals(((TaskInfo) FakeSm.values(td).get(0)).srcComponentId)) {
                    metricsTuple = td;
                }
            }
            if (metricsTuple == null) {
                InstanceToStreamManager m = bolt.poll(100);
                if (m != null && m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                    tuples.addAll(m.getTuples().getTuplesList());
                }
            }
        }
        assertNotNull(metricsTuple, "a __metrics tuple within the bucket");
        assertEquals(1, metricsTuple.getDestTask());
        assertEquals(2, metricsTuple.getSrcTask());
        assertEquals(0, metricsTuple.getRootsCount(), "unanchored");
        List<Object> values = FakeSm.values(metricsTuple);
        TaskInfo info = assertInstanceOf(TaskInfo.class, values.get(0));
        assertEquals("bolt", info.srcComponentId);
        assertEquals(2, info.srcTaskId);
        assertEquals(1, info.updateIntervalSecs);
        assertInstanceOf(Collection.class, values.get(1));

        // The consumer's instance gets the tuple and calls the user's consumer.
        sm.startInstance(consumerId + "-0", 0);
        FakeSm.Conn consumer = sm.accept(consumerId + "-0");
        consumer.assign(FakeSm.assignment(topo, dir, consumerId + "-0", consumerId, 1));
        consumer.awaitReady();
        assertEquals(List.of("prepare the-arg task 1"), RECEIVED);
        // Every __metrics tuple the bolt sent until now (there may be several buckets).
        for (TupleData td : tuples) {
            if (td.getStream().equals("__metrics")) {
                consumer.sendTuples(td);
            }
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (RECEIVED.size() < 2 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertEquals("points from bolt:2 every 1", RECEIVED.get(1));
        Map<String, Object> sums = new HashMap<>();
        for (DataPoint p : POINTS) {
            if (p.value instanceof Map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) p.value;
                Object v = m.get("spout:default");
                if (v instanceof Long) {
                    sums.merge(p.name, v, (a, b) -> (Long) a + (Long) b);
                }
            } else if (p.name.equals("my-count")) {
                sums.merge(p.name, p.value, (a, b) -> (Long) a + (Long) b);
            } else if (p.name.equals("my-v2-count")) {
                sums.merge(p.name, p.value, (a, b) -> Math.max((Long) a, (Long) b));
            }
        }
        assertEquals(3L, sums.get(TaskMetrics.EXECUTE_COUNT));
        assertEquals(3L, sums.get(TaskMetrics.ACK_COUNT));
        assertEquals(3L, sums.get("my-count"), "the user's v1 metric");
        assertEquals(3L, sums.get("my-v2-count"), "the user's v2 counter, reported as Storm does");
        assertTrue(POINTS.stream().anyMatch(p -> p.name.equals(TaskMetrics.EXECUTE_LATENCY)
                && ((Map<?, ?>) p.value).containsKey("spout:default")));
        assertFalse(POINTS.stream().anyMatch(p -> p.name.equals(TaskMetrics.COMPLETE_LATENCY)));
        consumer.close();
        bolt.close();
    }
}

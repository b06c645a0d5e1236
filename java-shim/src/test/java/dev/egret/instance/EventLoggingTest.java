package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.client.Submitter;
import dev.egret.client.TopologyCapture;
import dev.egret.proto.EventLogging;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.Topology;
import dev.egret.proto.TupleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emit side of Storm's event logging, in process: a bolt instance sends an event on
 * {@code __eventlog} to the event logger's task for each tuple it emits while its sampling is
 * 100 (from the assignment, or an {@code event_logging} change), and none at 0.
 */
class EventLoggingTest {
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

    public static final class Bang extends BaseRichBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
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
        dir = Files.createTempDirectory("egret-evlog-test");
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
        b.setBolt("bang", new Bang()).shuffleGrouping("spout");
        b.setBolt("sink", new Bang()).shuffleGrouping("bang");
        Config user = new Config();
        user.setNumEventLoggers(1);
        Map<String, Object> conf = Submitter.mergeConfig(user);
        return TopologyCapture.capture("evlog", conf, b.createTopology()).toBuilder().setId("evlog-1-1").build();
    }

    /**
     * The tuples the instance sends until {@code count} of them are on the default stream and
     * {@code events} on {@code __eventlog} (an event leaves right after its tuple; a late one
     * of an earlier phase shows up in the next phase's list).
     */
    private static List<TupleData> tuples(FakeSm.Conn c, int count, int events) throws InterruptedException {
        List<TupleData> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (out.stream().filter(t -> t.getStream().equals("default")).count() < count
                || events(out).size() < events) {
            assertTrue(System.nanoTime() < deadline, "only " + out);
            InstanceToStreamManager m = c.poll(100);
            if (m != null && m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                out.addAll(m.getTuples().getTuplesList());
            }
        }
        return out;
    }

    private static List<TupleData> events(List<TupleData> tuples) {
        return tuples.stream().filter(t -> t.getStream().equals("__eventlog")).toList();
    }

    @Test
    void eachEmitIsSentToTheEventLoggerWhileSamplingIsOn() throws Exception {
        Topology topo = topology();
        TopologyView view = new TopologyView(topo);
        int logger = view.tasksOf("__eventlogger").get(0);
        int bang = view.tasksOf("bang").get(0);
        int spout = view.tasksOf("spout").get(0);

        sm.startInstance("bang-0", 0);
        FakeSm.Conn conn = sm.accept("bang-0");
        conn.assign(FakeSm.assignment(topo, dir, "bang-0", "bang", bang).toBuilder().setEventSamplingPct(100)
                .build());
        conn.awaitReady();
        conn.sendTuples(FakeSm.tuple(bang, spout, List.of("a"), 0L), FakeSm.tuple(bang, spout, List.of("b"), 0L));
        List<TupleData> first = events(tuples(conn, 2, 2));
        assertEquals(2, first.size(), "one event per emit: " + first);
        for (int i = 0; i < 2; i++) {
            TupleData e = first.get(i);
            assertEquals(logger, e.getDestTask());
            assertEquals(bang, e.getSrcTask());
            assertEquals(0, e.getRootsCount(), "events are untracked");
            List<Object> v = FakeSm.values(e);
            assertEquals("bang", v.get(0));
            assertNull(v.get(1), "a bolt's event has no message id");
            assertTrue(v.get(2) instanceof Long);
            assertEquals(List.of(i == 0 ? "a!" : "b!"), v.get(3));
        }

        conn.send(StreamManagerToInstance.newBuilder()
                .setEventLogging(EventLogging.newBuilder().setSamplingPct(0)).build());
        conn.sendTuples(FakeSm.tuple(bang, spout, List.of("c"), 0L), FakeSm.tuple(bang, spout, List.of("d"), 0L));
        assertEquals(List.of(), events(tuples(conn, 2, 0)), "no event once sampling is 0");

        conn.send(StreamManagerToInstance.newBuilder()
                .setEventLogging(EventLogging.newBuilder().setSamplingPct(100)).build());
        conn.sendTuples(FakeSm.tuple(bang, spout, List.of("e"), 0L));
        List<TupleData> last = events(tuples(conn, 1, 1));
        assertEquals(1, last.size(), last.toString());
        assertEquals(List.of("e!"), FakeSm.values(last.get(0)).get(3));
    }
}

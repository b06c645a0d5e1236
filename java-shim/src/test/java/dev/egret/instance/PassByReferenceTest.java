package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Bridge;
import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.Topology;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two executors in one JVM with the JNI bridge's settings, against a fake stream manager
 * that forwards the spout's tuples to the bolt: the bolt gets the very objects the spout
 * emitted (values of a class Kryo could not even write), and the frames carry only their
 * numbers; with {@code topology.testing.always.try.serialize} the values go as bytes.
 */
class PassByReferenceTest {
    static final int TUPLES = 5;
    static final List<Object> EMITTED = new CopyOnWriteArrayList<>();
    static final List<Object> RECEIVED = new CopyOnWriteArrayList<>();

    /** Neither Serializable nor registered with Kryo: only a reference can carry it. */
    static final class Opaque {
        final int n;

        Opaque(int n) {
            this.n = n;
        }

        @Override
        public String toString() {
            return "Opaque(" + n + ")";
        }
    }

    /** Emits {@link #TUPLES} tracked tuples, of an {@link Opaque} or, with {@code strings}, of a string. */
    static final class ObjectSpout extends BaseRichSpout {
        private final boolean strings;
        private transient SpoutOutputCollector collector;
        private transient int n;

        ObjectSpout(boolean strings) {
            this.strings = strings;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext ctx, SpoutOutputCollector c) {
            collector = c;
        }

        @Override
        public void nextTuple() {
            if (n < TUPLES) {
                n++;
                Object v = strings ? "word-" + n : new Opaque(n);
                EMITTED.add(v);
                collector.emit(new Values(v), n);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
        }
    }

    static final class RecordingBolt extends BaseRichBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            collector = c;
        }

        @Override
        public void execute(Tuple input) {
            RECEIVED.add(input.getValue(0));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
        }
    }

    private Path dir;
    private FakeSm sm;

    @BeforeEach
    void setUp() throws Exception {
        EMITTED.clear();
        RECEIVED.clear();
        LocalValues.resetForTests();
        LocalValues.enableInThisJvm();
        dir = Files.createTempDirectory("egret-by-reference-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        sm.close();
        LocalValues.resetForTests();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** bolt: task 1; spout: task 2; both in container 1, with the JNI bridge. */
    private static Topology topology(boolean alwaysTrySerialize, boolean strings) {
        Topology t = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{}")
                .addComponents(Plans.bolt("bolt", 1, new RecordingBolt())
                        .addInputs(Plans.input("spout", "default", Plans.shuffle())))
                .addComponents(Plans.spout("spout", 1, new ObjectSpout(strings)).addStreams(Plans.stream("default", "v")))
                .build();
        t = Plans.withSettings(t);
        return t.toBuilder().setSettings(t.getSettings().toBuilder().setBridge(Bridge.BRIDGE_JNI)
                .setAlwaysTrySerialize(alwaysTrySerialize)).build();
    }

    private FakeSm.Conn start(Topology topo, String component, int task) throws Exception {
        String id = component + "-0";
        sm.startInstance(id, 0);
        FakeSm.Conn c = sm.accept(id);
        InstanceAssignment a = FakeSm.assignment(topo, dir, id, component, task).toBuilder()
                .putTaskContainer(1, 1).putTaskContainer(2, 1).build();
        c.assign(a);
        c.awaitReady();
        return c;
    }

    private static List<TupleData> tuples(FakeSm.Conn spout) throws InterruptedException {
        List<TupleData> out = new ArrayList<>();
        for (TupleBatch b : spout.batches(TUPLES, 10_000)) {
            out.addAll(b.getTuplesList());
        }
        assertEquals(TUPLES, out.size(), "tuples from the spout: " + out);
        return out;
    }

    private static void awaitReceived(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (RECEIVED.size() < n) {
            assertTrue(System.nanoTime() < deadline, "the bolt executed " + RECEIVED);
            Thread.sleep(5);
        }
    }

    @Test
    void aBoltOfTheSameJvmGetsTheSpoutsOwnObjectsAndTheFramesOnlyTheirNumbers() throws Exception {
        Topology topo = topology(false, false);
        FakeSm.Conn bolt = start(topo, "bolt", 1);
        FakeSm.Conn spout = start(topo, "spout", 2);
        List<TupleData> sent = tuples(spout);
        for (int i = 0; i < sent.size(); i++) {
            TupleData td = sent.get(i);
            assertEquals(i + 1, td.getLocalRef(), "numbers per pair, from 1, in order: " + td);
            assertTrue(td.getValues().isEmpty(), "no value bytes: " + td);
            assertEquals(1, td.getRootsCount(), "still a tracked tuple: " + td);
        }
        assertEquals(TUPLES, LocalValues.existingRing(2, 1).held());

        // The second tuple is lost on the way (as with a connection dropped under it): the
        // bolt takes the others, and the lost one's values are let go with them.
        bolt.sendTuples(sent.get(0));
        bolt.sendTuples(sent.subList(2, sent.size()).toArray(new TupleData[0]));
        awaitReceived(TUPLES - 1);
        for (int i = 0, j = 0; i < TUPLES; i++) {
            if (i == 1) {
                continue;
            }
            assertSame(EMITTED.get(i), RECEIVED.get(j++), "tuple " + i + " passed by reference");
        }
        assertEquals(0, LocalValues.existingRing(2, 1).held(), "nothing left held");

        // A number no emitter of this JVM holds: that tuple is dropped with an error, the next runs.
        bolt.sendTuples(sent.get(1), FakeSm.tuple(1, 2, List.of("after"), 7, FakeSm.root(2, 99)));
        awaitReceived(TUPLES);
        assertEquals("after", RECEIVED.get(TUPLES - 1));
        spout.close();
        bolt.close();
    }

    @Test
    void alwaysTrySerializeSendsTheValuesAsBytes() throws Exception {
        Topology topo = topology(true, true);
        FakeSm.Conn bolt = start(topo, "bolt", 1);
        FakeSm.Conn spout = start(topo, "spout", 2);
        List<TupleData> sent = tuples(spout);
        for (int i = 0; i < sent.size(); i++) {
            TupleData td = sent.get(i);
            assertEquals(0, td.getLocalRef(), "serialized: " + td);
            assertEquals(List.of("word-" + (i + 1)), FakeSm.values(td));
        }
        assertTrue(LocalValues.existingRing(2, 1) == null, "no ring was made");
        bolt.sendTuples(sent.toArray(new TupleData[0]));
        awaitReceived(TUPLES);
        assertEquals(EMITTED, RECEIVED);
        assertFalse(EMITTED.get(0) == RECEIVED.get(0), "a copy, not the spout's object");
        spout.close();
        bolt.close();
    }
}

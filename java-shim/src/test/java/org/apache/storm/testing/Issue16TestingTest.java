package org.apache.storm.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.RegisteredGlobalState;
import org.junit.jupiter.api.Test;

/** The testing classes issue 16 adds: trackers, capture, grouping, mocked sources. */
class Issue16TestingTest {

    private static Map<String, Object> stats() {
        Map<String, Object> stats = new HashMap<>();
        stats.put("spout-emitted", new AtomicInteger());
        stats.put("processed", new AtomicInteger());
        stats.put("transferred", new AtomicInteger());
        return stats;
    }

    private static int count(String trackId, String name) {
        @SuppressWarnings("unchecked")
        Map<String, Object> s = (Map<String, Object>) RegisteredGlobalState.getState(trackId);
        return ((AtomicInteger) s.get(name)).get();
    }

    private static GeneralTopologyContext context() {
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        fields.put("spout", new HashMap<>(Map.of("default", new Fields("word"), "other", new Fields("word"))));
        Map<Integer, String> t2c = new HashMap<>(Map.of(1, "spout"));
        Map<String, List<Integer>> c2t = new HashMap<>(Map.of("spout", List.of(1)));
        return new GeneralTopologyContext(null, new HashMap<>(), t2c, c2t, fields, "topo");
    }

    private static Tuple tuple(String stream, String word) {
        return new TupleImpl(context(), new Values(word), "spout", 1, stream);
    }

    @Test
    void boltTrackerCountsEachExecutedTuple() {
        String trackId = RegisteredGlobalState.registerState(stats());
        List<Tuple> seen = new ArrayList<>();
        IBolt inner = new IBolt() {
            @Override
            public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            }

            @Override
            public void execute(Tuple input) {
                seen.add(input);
            }

            @Override
            public void cleanup() {
            }
        };
        NonRichBoltTracker tracker = new NonRichBoltTracker(inner, trackId);
        tracker.execute(tuple("default", "a"));
        tracker.execute(tuple("default", "b"));
        assertEquals(2, seen.size());
        assertEquals(2, count(trackId, "processed"));
        RegisteredGlobalState.clearState(trackId);
        assertThrows(IllegalStateException.class, () -> tracker.execute(tuple("default", "c")));
    }

    @Test
    void spoutTrackerCountsEmitsAndCompletions() {
        String trackId = RegisteredGlobalState.registerState(stats());
        BaseRichSpout inner = new BaseRichSpout() {
            private SpoutOutputCollector out;

            @Override
            public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
                out = collector;
            }

            @Override
            public void nextTuple() {
                out.emit(new Values("w"), "id");
                out.emitDirect(4, new Values("d"), "id2");
            }

            @Override
            public void declareOutputFields(OutputFieldsDeclarer declarer) {
                declarer.declare(new Fields("word"));
            }
        };
        List<String> emitted = new ArrayList<>();
        ISpoutOutputCollector sink = new ISpoutOutputCollector() {
            @Override
            public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
                emitted.add(streamId + ":" + tuple);
                return List.of(7, 8);
            }

            @Override
            public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
                emitted.add(taskId + "->" + streamId + ":" + tuple);
            }

            @Override
            public long getPendingCount() {
                return 0;
            }

            @Override
            public void flush() {
            }

            @Override
            public void reportError(Throwable error) {
            }
        };
        SpoutTracker tracker = new SpoutTracker(inner, trackId);
        tracker.open(new HashMap<>(), null, new SpoutOutputCollector(sink));
        tracker.nextTuple();
        assertEquals(List.of("default:[w]", "4->default:[d]"), emitted);
        assertEquals(2, count(trackId, "spout-emitted"));
        tracker.ack("id");
        tracker.fail("id2");
        assertEquals(2, count(trackId, "processed"));
        RegisteredGlobalState.clearState(trackId);
    }

    @Test
    void ackTrackersShareStateAcrossSerializedCopies() throws Exception {
        AckTracker acks = new AckTracker();
        AckTracker copy = roundTrip(acks);
        copy.ack("a");
        copy.ack("b");
        copy.fail("c");
        assertEquals(2, acks.getNumAcks());
        acks.resetNumAcks();
        assertEquals(0, copy.getNumAcks());

        AckFailMapTracker map = new AckFailMapTracker();
        AckFailMapTracker mapCopy = roundTrip(map);
        mapCopy.ack(1);
        mapCopy.fail(2);
        assertTrue(map.isAcked(1));
        assertFalse(map.isAcked(2));
        assertTrue(map.isFailed(2));
    }

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T o) throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bos)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bos.toByteArray()))) {
            return (T) in.readObject();
        }
    }

    @Test
    void tupleCaptureBoltRecordsBySourceAndClears() {
        TupleCaptureBolt bolt = new TupleCaptureBolt();
        List<Tuple> acked = new ArrayList<>();
        bolt.prepare(new HashMap<>(), null, new OutputCollector(new org.apache.storm.task.IOutputCollector() {
            @Override
            public List<Integer> emit(String streamId, java.util.Collection<Tuple> anchors, List<Object> tuple) {
                return List.of();
            }

            @Override
            public void emitDirect(int taskId, String streamId, java.util.Collection<Tuple> anchors, List<Object> tuple) {
            }

            @Override
            public void ack(Tuple input) {
                acked.add(input);
            }

            @Override
            public void fail(Tuple input) {
            }

            @Override
            public void resetTimeout(Tuple input) {
            }

            @Override
            public void flush() {
            }

            @Override
            public void reportError(Throwable error) {
            }
        }));
        bolt.execute(tuple("default", "a"));
        bolt.execute(tuple("other", "b"));
        assertEquals(2, acked.size());
        List<FixedTuple> got = bolt.getResults().get("spout");
        assertEquals(2, got.size());
        assertEquals("other", got.get(1).stream);
        assertEquals(List.of("b"), got.get(1).values);
        Map<String, List<FixedTuple>> cleared = bolt.getAndClearResults();
        assertEquals(2, cleared.get("spout").size());
        assertTrue(bolt.getResults().isEmpty());
        assertNotNull(bolt.getAndRemoveResults());
    }

    @Test
    void nGroupingPicksTheLowestTasks() {
        NGrouping g = new NGrouping(2);
        g.prepare(null, null, Arrays.asList(9, 3, 5, 1));
        assertEquals(List.of(1, 3), g.chooseTasks(0, List.of("x")));
        NGrouping all = new NGrouping(10);
        all.prepare(null, null, Arrays.asList(2, 1));
        assertEquals(List.of(1, 2), all.chooseTasks(0, List.of()));
    }

    @Test
    void mockedSourcesAndAlternateRacks() {
        MockedSources sources = new MockedSources();
        sources.addMockData("s", new Values("a"), new Values("b"));
        sources.addMockData("s", "side", new Values("c"));
        List<FixedTuple> s = sources.getData().get("s");
        assertEquals(3, s.size());
        assertEquals("default", s.get(0).stream);
        assertEquals("side", s.get(2).stream);

        Map<String, String> racks = new AlternateRackDNSToSwitchMapping().resolve(List.of("h3", "h1", "h2"));
        assertEquals(Map.of("h1", "RACK1", "h2", "RACK2", "h3", "RACK1"), racks);
    }

    @Test
    void eventOrderCheckBoltFlagsOutOfOrderIds() {
        TestEventOrderCheckBolt bolt = new TestEventOrderCheckBolt();
        List<List<Object>> errors = new ArrayList<>();
        bolt.prepare(new HashMap<>(), null, new OutputCollector(new org.apache.storm.task.IOutputCollector() {
            @Override
            public List<Integer> emit(String streamId, java.util.Collection<Tuple> anchors, List<Object> tuple) {
                errors.add(tuple);
                return List.of();
            }

            @Override
            public void emitDirect(int taskId, String streamId, java.util.Collection<Tuple> anchors, List<Object> tuple) {
            }

            @Override
            public void ack(Tuple input) {
            }

            @Override
            public void fail(Tuple input) {
            }

            @Override
            public void resetTimeout(Tuple input) {
            }

            @Override
            public void flush() {
            }

            @Override
            public void reportError(Throwable error) {
            }
        }));
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        fields.put("log", new HashMap<>(Map.of("default", new Fields("source", "eventId"))));
        GeneralTopologyContext ctx = new GeneralTopologyContext(null, new HashMap<>(), new HashMap<>(Map.of(1, "log")),
                new HashMap<>(Map.of("log", List.of(1))), fields, "topo");
        bolt.execute(new TupleImpl(ctx, new Values(1, 1L), "log", 1, "default"));
        bolt.execute(new TupleImpl(ctx, new Values(1, 2L), "log", 1, "default"));
        bolt.execute(new TupleImpl(ctx, new Values(1, 2L), "log", 1, "default"));
        assertEquals(1, errors.size());
        assertTrue(String.valueOf(errors.get(0).get(0)).startsWith("Error: event id is not in strict order!"));
    }
}

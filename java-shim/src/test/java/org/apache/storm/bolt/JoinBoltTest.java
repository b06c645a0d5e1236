package org.apache.storm.bolt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.client.TopologyCapture;
import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.OutputFieldsGetter;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.topology.base.BaseWindowedBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.windowing.TupleWindowImpl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class JoinBoltTest {
    /** A spout declaring the given streams, each with its fields. */
    static final class DeclaringSpout extends BaseRichSpout {
        private final Map<String, List<String>> streams;

        DeclaringSpout(Map<String, List<String>> streams) {
            this.streams = streams;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            streams.forEach((stream, fields) -> declarer.declareStream(stream, new Fields(fields)));
        }
    }

    /** An emit as recorded. */
    record Emit(String stream, List<Object> values, List<Tuple> anchors) {
    }

    /** Records the emits. */
    static final class FakeCollector implements IOutputCollector {
        final List<Emit> emits = new ArrayList<>();

        @Override
        public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emits.add(new Emit(streamId, new ArrayList<>(tuple), anchors == null ? List.of() : new ArrayList<>(anchors)));
            return List.of();
        }

        @Override
        public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emit(streamId, anchors, tuple);
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
            throw new AssertionError("unexpected reportError", error);
        }
    }

    private static TopologyView view;

    @BeforeAll
    static void topology() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("users", new DeclaringSpout(Map.of("default", List.of("id", "name", "address"))));
        b.setSpout("orders", new DeclaringSpout(Map.of("default", List.of("orderId", "userId", "amount"))));
        b.setSpout("cities", new DeclaringSpout(Map.of("default", List.of("city", "country"))));
        b.setSpout("multi", new DeclaringSpout(Map.of("left", List.of("k", "v"), "right", List.of("k", "w"))));
        view = new TopologyView(TopologyCapture.capture("join-test", new HashMap<>(), b.createTopology()));
    }

    private static Tuple tuple(String source, String stream, Object... values) {
        int task = view.tasksOf(source).get(0);
        TopologyContext ctx = new TopologyContext(view, task, List.of(task), "/tmp", "/tmp", null, null, null);
        return new TupleImpl(ctx, Arrays.asList(values), source, task, stream);
    }

    private static Tuple user(int id, String name, String city) {
        Map<String, Object> address = new HashMap<>();
        address.put("city", city);
        address.put("geo", Map.of("zip", "Z" + id));
        return tuple("users", "default", id, name, address);
    }

    private static Tuple order(int orderId, Integer userId, int amount) {
        return tuple("orders", "default", orderId, userId, amount);
    }

    private static FakeCollector run(JoinBolt bolt, Tuple... window) {
        FakeCollector fake = new FakeCollector();
        bolt.prepare(new HashMap<>(), null, new OutputCollector(fake));
        bolt.execute(new TupleWindowImpl(Arrays.asList(window), Arrays.asList(window), List.of()));
        return fake;
    }

    private static Set<List<Object>> rows(FakeCollector fake) {
        Set<List<Object>> rows = new HashSet<>();
        for (Emit e : fake.emits) {
            assertTrue(rows.add(e.values()), "duplicate row " + e.values());
        }
        return rows;
    }

    private static List<String> declared(JoinBolt bolt, String stream) {
        OutputFieldsGetter getter = new OutputFieldsGetter();
        bolt.declareOutputFields(getter);
        StreamInfo info = getter.getFieldsDeclaration().get(stream);
        return info == null ? null : info.get_output_fields();
    }

    @Test
    void innerJoinPairsEveryMatchAndDropsRowsWithoutOne() {
        JoinBolt bolt = new JoinBolt("users", "id").join("orders", "userId", "users")
                .select("users:id, name ,orderId,amount");
        Tuple alice = user(1, "alice", "Paris");
        Tuple bob = user(2, "bob", "Oslo");
        Tuple carol = user(3, "carol", "Rome");
        Tuple o10 = order(10, 1, 5);
        Tuple o11 = order(11, 1, 7);
        Tuple o12 = order(12, 2, 9);
        Tuple o13 = order(13, 4, 1); // no such user
        FakeCollector fake = run(bolt, alice, o10, bob, o11, carol, o12, o13);

        assertEquals(Set.of(List.of(1, "alice", 10, 5), List.of(1, "alice", 11, 7), List.of(2, "bob", 12, 9)),
                rows(fake));
        for (Emit e : fake.emits) {
            assertEquals("default", e.stream());
            assertEquals(2, e.anchors().size(), "anchored to the user and the order");
            assertEquals(e.values().get(0), e.anchors().get(0).getValueByField("id"));
            assertEquals(e.values().get(2), e.anchors().get(1).getValueByField("orderId"));
        }
        assertEquals(List.of("users:id", "name", "orderId", "amount"), declared(bolt, "default"));
    }

    @Test
    void leftJoinKeepsRowsWithoutAMatchWithNulls() {
        JoinBolt bolt = new JoinBolt("users", "id").leftJoin("orders", "userId", "users")
                .select("name,orderId");
        Tuple alice = user(1, "alice", "Paris");
        Tuple bob = user(2, "bob", "Oslo");
        FakeCollector fake = run(bolt, alice, bob, order(10, 1, 5), order(11, null, 3));

        assertEquals(Set.of(List.of("alice", 10), Arrays.asList("bob", null)), rows(fake));
        for (Emit e : fake.emits) {
            if (e.values().get(1) == null) {
                assertEquals(List.of(bob), e.anchors(), "a row without a match is anchored to its own tuples only");
            }
        }
    }

    @Test
    void aRowKeptWithoutAPartnerIsDroppedByTheNextJoinOnThatPartner() {
        // users left join orders; then cities left join on orders' field: bob has no order,
        // so his key for the cities join is null and, as in Storm, his row goes no further.
        JoinBolt bolt = new JoinBolt("users", "id").leftJoin("orders", "userId", "users")
                .leftJoin("cities", "city", "orders")
                .select("name,orderId,country");
        Tuple c1 = tuple("cities", "default", 1, "FR");
        FakeCollector fake = run(bolt, user(1, "alice", "Paris"), user(2, "bob", "Oslo"), order(10, 1, 5), c1);
        assertEquals(Set.of(List.of("alice", 10, "FR")), rows(fake));
    }

    @Test
    void joinsChainInDeclarationOrderOnEachStreamsOwnField() {
        // orders, inner join users on users.id = orders.userId, left join cities on
        // cities.city = users.id (a stream always joins on the field it was introduced with).
        JoinBolt bolt = new JoinBolt("orders", "userId")
                .join("users", "id", "orders")
                .leftJoin("cities", "city", "users")
                .select("orderId,users:name,country");
        Tuple o10 = order(10, 1, 5);
        Tuple o12 = order(12, 2, 9);
        // cities.city is compared with users' join field (id): 1 matches, 2 does not.
        Tuple c1 = tuple("cities", "default", 1, "FR");
        FakeCollector fake = run(bolt, o10, o12, user(1, "alice", "Paris"), user(2, "bob", "Oslo"), c1);
        assertEquals(Set.of(List.of(10, "alice", "FR"), Arrays.asList(12, "bob", null)), rows(fake));
        Emit first = fake.emits.stream().filter(e -> e.values().get(0).equals(10)).findFirst().orElseThrow();
        assertEquals(3, first.anchors().size());
    }

    @Test
    void nestedFieldsJoinAndSelectThroughMaps() {
        JoinBolt bolt = new JoinBolt("users", "address.city").join("cities", "city", "users")
                .select("name, users:address.city, users:address.geo.zip, country, address.missing.x");
        FakeCollector fake = run(bolt, user(1, "alice", "Paris"), user(2, "bob", "Oslo"),
                tuple("cities", "default", "Paris", "FR"), tuple("cities", "default", "Lima", "PE"));
        assertEquals(Set.of(Arrays.asList("alice", "Paris", "Z1", "FR", null)), rows(fake));
        assertEquals(List.of("name", "users:address.city", "users:address.geo.zip", "country", "address.missing.x"),
                declared(bolt, "default"));
    }

    @Test
    void streamSelectorJoinsStreamsOfOneSourceAndEmitsOnTheOutputStream() {
        JoinBolt bolt = new JoinBolt(JoinBolt.Selector.STREAM, "left", "k").join("right", "k", "left")
                .select("left:k,v,w").withOutputStream("joined");
        FakeCollector fake = run(bolt, tuple("multi", "left", "a", 1), tuple("multi", "right", "a", 2),
                tuple("multi", "right", "b", 3), tuple("multi", "left", "c", 4));
        assertEquals(Set.of(List.of("a", 1, 2)), rows(fake));
        assertEquals("joined", fake.emits.get(0).stream());
        assertEquals(List.of("left:k", "v", "w"), declared(bolt, "joined"));
        assertEquals(null, declared(bolt, "default"));
    }

    @Test
    void qualifiedNamesPickTheirStreamsFieldAndUnqualifiedOnesTheFirstTupleHavingIt() {
        // Both streams have a field k: "k" is the first tuple's (left), "right:k" the other's.
        JoinBolt bolt = new JoinBolt(JoinBolt.Selector.STREAM, "left", "v").join("right", "w", "left")
                .select("k,right:k");
        FakeCollector fake = run(bolt, tuple("multi", "left", "a", 1), tuple("multi", "right", "b", 1));
        assertEquals(Set.of(List.of("a", "b")), rows(fake));
    }

    @Test
    void aSingleStreamIsProjectedAndOtherStreamsAreIgnored() {
        JoinBolt bolt = new JoinBolt("users", "id").select("id,name");
        FakeCollector fake = run(bolt, user(1, "alice", "Paris"), order(10, 1, 5));
        assertEquals(Set.of(List.of(1, "alice")), rows(fake));
    }

    @Test
    void nullJoinKeysMatchNothing() {
        JoinBolt inner = new JoinBolt("orders", "userId").join("users", "id", "orders").select("orderId,name");
        Tuple nullUser = tuple("users", "default", null, "ghost", Map.of());
        assertEquals(Set.of(List.of(10, "alice")),
                rows(run(inner, order(10, 1, 5), order(11, null, 5), user(1, "alice", "Paris"), nullUser)));
        // Storm's left join drops a row whose own join key is null, as the inner join does
        // (only a non-null key without a partner is kept, with nulls).
        JoinBolt left = new JoinBolt("orders", "userId").leftJoin("users", "id", "orders").select("orderId,name");
        assertEquals(Set.of(List.of(10, "alice")),
                rows(run(left, order(10, 1, 5), order(11, null, 5), user(1, "alice", "Paris"), nullUser)));
    }

    @Test
    void eachWindowIsJoinedOnItsOwn() {
        JoinBolt bolt = new JoinBolt("users", "id").join("orders", "userId", "users").select("name,orderId");
        FakeCollector fake = new FakeCollector();
        bolt.prepare(new HashMap<>(), null, new OutputCollector(fake));
        Tuple alice = user(1, "alice", "Paris");
        bolt.execute(new TupleWindowImpl(List.of(alice), List.of(alice), List.of()));
        assertTrue(fake.emits.isEmpty());
        Tuple o = order(10, 1, 5);
        bolt.execute(new TupleWindowImpl(List.of(o), List.of(o), List.of(alice)));
        assertTrue(fake.emits.isEmpty(), "alice expired: nothing to join with");
        bolt.execute(new TupleWindowImpl(List.of(o, alice), List.of(alice), List.of()));
        assertEquals(List.of(List.of("alice", 10)), fake.emits.stream().map(Emit::values).toList());
    }

    @Test
    void misuseIsRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> new JoinBolt("users", "id").join("orders", "userId", "nobody"));
        assertThrows(IllegalArgumentException.class,
                () -> new JoinBolt("users", "id").join("orders", "orders:userId", "users"));
        assertThrows(IllegalArgumentException.class,
                () -> new JoinBolt("users", "id").join("users", "id", "users"));
        JoinBolt noSelect = new JoinBolt("users", "id");
        assertThrows(IllegalArgumentException.class, () -> declared(noSelect, "default"));
        assertThrows(IllegalArgumentException.class,
                () -> noSelect.prepare(new HashMap<>(), null, new OutputCollector(new FakeCollector())));
    }

    @Test
    void windowSettersChainOnAJoinBoltAndConfigureTheWindow() {
        JoinBolt bolt = new JoinBolt("users", "id").select("id")
                .withTumblingWindow(new BaseWindowedBolt.Duration(10, java.util.concurrent.TimeUnit.SECONDS))
                .withLateTupleStream("late");
        Map<String, Object> conf = bolt.getComponentConfiguration();
        assertEquals(10_000, conf.get("topology.bolts.window.length.duration.ms"));
        assertEquals(10_000, conf.get("topology.bolts.window.sliding.interval.duration.ms"));
        assertEquals("late", conf.get("topology.bolts.late.tuple.stream"));
    }
}

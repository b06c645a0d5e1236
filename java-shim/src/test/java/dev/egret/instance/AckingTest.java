package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.AckEntry;
import dev.egret.proto.AckKind;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.RootId;
import dev.egret.proto.Topology;
import dev.egret.proto.TreeOutcome;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.storm.topology.BasicBoltExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * At-least-once in the instance, against a fake stream manager: what a spout and a bolt put
 * on the wire, how the XORs add up in a simulated ledger, tree events, max spout pending,
 * acking off, basic bolts, the safety net and reconnecting.
 */
class AckingTest {
    private Path dir;
    private FakeSm sm;

    @BeforeEach
    void setUp() throws Exception {
        TestComponents.EVENTS.clear();
        AckingComponents.MAX_PENDING_SEEN.set(0);
        dir = Files.createTempDirectory("egret-acking-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        sm.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** sink: tasks 1..sinkTasks (all grouping); spout: the next task. */
    private static Topology spoutTopology(int sinkTasks, int spoutLimit, String config) {
        return Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson(config)
                .addComponents(Plans.bolt("sink", sinkTasks, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("spout", "default", Plans.all())))
                .addComponents(Plans.spout("spout", 1, new AckingComponents.TrackedSpout(spoutLimit))
                        .addStreams(Plans.stream("default", "word")))
                .build();
    }

    /** a: task 1 (the given bolt); b: tasks 2, 3 (all grouping from a); spout: task 4. */
    private static Topology boltTopology(java.io.Serializable a) {
        return Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{\"egret.batch.size\": 100}")
                .addComponents(Plans.bolt("a", 1, a)
                        .addInputs(Plans.input("spout", "default", Plans.shuffle()))
                        .addStreams(Plans.stream("default", "word")))
                .addComponents(Plans.bolt("b", 2, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("a", "default", Plans.all())))
                .addComponents(Plans.spout("spout", 1, new AckingComponents.TrackedSpout(0))
                        .addStreams(Plans.stream("default", "word")))
                .build();
    }

    private FakeSm.Conn start(Topology topo, String instanceId, String component, Integer... tasks)
            throws Exception {
        sm.startInstance(instanceId, 0);
        FakeSm.Conn c = sm.accept(instanceId);
        c.assign(FakeSm.assignment(topo, dir, instanceId, component, tasks));
        c.awaitReady();
        return c;
    }

    private static void awaitEvent(String event) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (!TestComponents.EVENTS.contains(event)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no event '" + event + "' in " + TestComponents.EVENTS);
            }
            Thread.sleep(5);
        }
    }

    private static long count(String event) {
        return TestComponents.EVENTS.stream().filter(event::equals).count();
    }

    /** A ledger as the stream manager keeps it: XOR per root. */
    private static final class Ledger {
        final Map<RootId, Long> xor = new HashMap<>();

        void apply(List<AckEntry> entries) {
            for (AckEntry e : entries) {
                assertTrue(e.getKind() == AckKind.ACK_KIND_INIT || e.getKind() == AckKind.ACK_KIND_ACK,
                        "unexpected " + e);
                xor.merge(e.getRoot(), e.getXor(), (x, y) -> x ^ y);
            }
        }

        long of(RootId r) {
            return xor.getOrDefault(r, 0L);
        }
    }

    /** Key of the tree of each message ("m0" -> key), from the tuples. */
    private static Map<String, RootId> rootsByMessage(List<TupleData> tuples) {
        Map<String, RootId> m = new HashMap<>();
        for (TupleData td : tuples) {
            m.put((String) FakeSm.values(td).get(0), td.getRoots(0));
        }
        return m;
    }

    @Test
    void aTrackedSpoutEmitCarriesRootsEdgesAndItsInitInTheSameBatch() throws Exception {
        FakeSm.Conn c = start(spoutTopology(2, 3, "{\"egret.batch.size\": 100}"), "spout-0", "spout", 3);
        List<TupleBatch> batches = c.batches(6, 5000);
        List<TupleData> all = new ArrayList<>();
        Set<Long> edges = new HashSet<>();
        for (TupleBatch b : batches) {
            Map<RootId, Long> inits = new HashMap<>();
            for (AckEntry e : b.getAcksList()) {
                assertEquals(AckKind.ACK_KIND_INIT, e.getKind());
                assertEquals(3, e.getRoot().getSpoutTask());
                assertNotEquals(0L, e.getRoot().getKey());
                inits.put(e.getRoot(), e.getXor());
            }
            Map<RootId, Long> xors = new HashMap<>();
            for (TupleData td : b.getTuplesList()) {
                assertEquals(1, td.getRootsCount());
                assertNotEquals(0L, td.getEdgeId());
                assertTrue(edges.add(td.getEdgeId()), "edge ids are distinct");
                assertTrue(inits.containsKey(td.getRoots(0)), "the INIT travels in the tuple's batch");
                xors.merge(td.getRoots(0), td.getEdgeId(), (x, y) -> x ^ y);
            }
            assertEquals(inits, xors, "each INIT is the XOR of its copies' edge ids");
            all.addAll(b.getTuplesList());
        }
        assertEquals(6, all.size());
        Map<String, RootId> roots = rootsByMessage(all);
        assertEquals(3, new HashSet<>(roots.values()).size());
        assertEquals(3, AckingComponents.MAX_PENDING_SEEN.get(), "getPendingCount counts the pending trees");

        // Outcomes: each callback exactly once; unknown keys and resets change nothing.
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m0"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m0"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_FAILED, roots.get("m1"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_FAILED, roots.get("m1"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, FakeSm.root(3, 42));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_TIMEOUT_RESET, roots.get("m2"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, FakeSm.root(99, roots.get("m2").getKey()));
        awaitEvent("ack 0");
        awaitEvent("fail 1");
        // The spout replays m1 as a new tree.
        List<TupleData> replay = new ArrayList<>();
        for (TupleBatch b : c.batches(2, 5000)) {
            replay.addAll(b.getTuplesList());
        }
        assertEquals(2, replay.size());
        assertEquals(List.of("m1"), FakeSm.values(replay.get(0)));
        assertNotEquals(roots.get("m1"), replay.get(0).getRoots(0));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m2"));
        awaitEvent("ack 2");
        Thread.sleep(100);
        assertEquals(1, count("ack 0"));
        assertEquals(1, count("fail 1"));
        assertEquals(1, count("ack 2"));
        assertFalse(TestComponents.EVENTS.contains("ack 1"));
        c.close();
    }

    @Test
    void aTrackedDirectEmitStartsATreeAndAnEmitWithNoTargetInitsZero() throws Exception {
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{}")
                .addComponents(Plans.bolt("sink", 1, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("spout", "d", Plans.direct())))
                .addComponents(Plans.spout("spout", 1, new AckingComponents.DirectSpout())
                        .addStreams(Plans.directStream("d", "word")))
                .build();
        FakeSm.Conn c = start(topo, "spout-0", "spout", 2);
        List<TupleBatch> batches = c.batches(1, 5000);
        List<AckEntry> inits = new ArrayList<>();
        List<TupleData> tuples = new ArrayList<>();
        for (TupleBatch b : batches) {
            inits.addAll(b.getAcksList());
            tuples.addAll(b.getTuplesList());
        }
        if (inits.size() < 2) {
            for (TupleBatch b : c.batches(1, 200)) {
                inits.addAll(b.getAcksList());
            }
        }
        assertEquals(1, tuples.size());
        assertEquals(1, tuples.get(0).getDestTask());
        assertEquals(2, inits.size());
        assertEquals(tuples.get(0).getRoots(0), inits.get(0).getRoot());
        assertEquals(tuples.get(0).getEdgeId(), inits.get(0).getXor());
        assertEquals(0L, inits.get(1).getXor(), "no target: the tree starts empty");
        for (AckEntry e : inits) {
            c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, e.getRoot());
        }
        awaitEvent("ack 0");
        awaitEvent("ack 1");
        c.close();
    }

    @Test
    void maxSpoutPendingStopsNextTupleUntilATreeCompletes() throws Exception {
        FakeSm.Conn c = start(spoutTopology(1, 10, "{\"topology.max.spout.pending\": 2}"),
                "spout-0", "spout", 2);
        List<TupleData> got = new ArrayList<>();
        for (TupleBatch b : c.batches(2, 5000)) {
            got.addAll(b.getTuplesList());
        }
        for (TupleBatch b : c.batches(1, 600)) {
            got.addAll(b.getTuplesList());
        }
        assertEquals(2, got.size(), "two trees pending: no third nextTuple");
        assertEquals(2, AckingComponents.MAX_PENDING_SEEN.get());
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, got.get(0).getRoots(0));
        List<TupleData> more = new ArrayList<>();
        for (TupleBatch b : c.batches(1, 5000)) {
            more.addAll(b.getTuplesList());
        }
        for (TupleBatch b : c.batches(1, 600)) {
            more.addAll(b.getTuplesList());
        }
        assertEquals(1, more.size(), "one tree done: exactly one more");
        assertEquals(List.of("m2"), FakeSm.values(more.get(0)));
        assertEquals(2, AckingComponents.MAX_PENDING_SEEN.get());
        awaitEvent("ack 0");
        c.close();
    }

    @Test
    void withAckersOffTuplesCarryNoRootsAndTheSpoutIsAckedAtOnce() throws Exception {
        FakeSm.Conn c = start(spoutTopology(1, 3, "{\"topology.acker.executors\": 0, \"topology.max.spout.pending\": 1}"),
                "spout-0", "spout", 2);
        List<TupleData> got = new ArrayList<>();
        for (TupleBatch b : c.batches(3, 5000)) {
            assertEquals(0, b.getAcksCount());
            got.addAll(b.getTuplesList());
        }
        assertEquals(3, got.size(), "max spout pending does not apply without acking");
        for (TupleData td : got) {
            assertEquals(0, td.getRootsCount());
            assertEquals(0L, td.getEdgeId());
        }
        awaitEvent("ack 0");
        awaitEvent("ack 1");
        awaitEvent("ack 2");
        c.close();
    }

    @Test
    void anchoredEmitsAndAcksCancelEveryTreeInTheLedger() throws Exception {
        Topology topo = boltTopology(new AckingComponents.AnchoringBolt());
        FakeSm.Conn a = start(topo, "a-0", "a", 1);
        FakeSm.Conn b = start(topo, "b-0", "b", 2, 3);
        Ledger ledger = new Ledger();

        // A split: one spout tuple, re-emitted anchored to two targets, acked; b acks both copies.
        RootId r = FakeSm.root(4, 12345L);
        long e0 = 777L;
        ledger.apply(List.of(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(r).setXor(e0).build()));
        a.sendTuples(FakeSm.tuple(1, 4, List.of("split"), e0, r));
        FakeSm.Received fromA = a.receive(1, 2);
        assertEquals(1, fromA.acks.size());
        ledger.apply(fromA.acks);
        assertNotEquals(0L, ledger.of(r), "the copies are still pending");
        for (TupleData td : fromA.tuples) {
            assertEquals(List.of(r), td.getRootsList());
            assertNotEquals(0L, td.getEdgeId());
        }
        awaitEvent("a split ids {12345=777}");
        b.sendTuples(fromA.tuples.get(0));
        FakeSm.Received fromB = b.receive(1, 0);
        ledger.apply(fromB.acks);
        assertNotEquals(0L, ledger.of(r), "one copy is still pending");
        b.sendTuples(fromA.tuples.get(1));
        ledger.apply(b.receive(1, 0).acks);
        assertEquals(0L, ledger.of(r), "the tree is complete");

        // A join of two tuples of the same tree (Storm XORs one edge per anchor; the wire has one).
        RootId r2 = FakeSm.root(4, 555L);
        ledger.apply(List.of(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(r2).setXor(11L ^ 13L)
                .build()));
        a.sendTuples(FakeSm.tuple(1, 4, List.of("join1"), 11L, r2), FakeSm.tuple(1, 4, List.of("join2"), 13L, r2));
        fromA = a.receive(4, 2);
        ledger.apply(fromA.acks);
        assertNotEquals(0L, ledger.of(r2));
        b.sendTuples(fromA.tuples.toArray(new TupleData[0]));
        ledger.apply(b.receive(2, 0).acks);
        assertEquals(0L, ledger.of(r2), "the joined tree is complete");

        // A join of two trees: the child belongs to both.
        RootId r3 = FakeSm.root(4, 3L);
        RootId r4 = FakeSm.root(4, 4L);
        ledger.apply(List.of(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(r3).setXor(21L).build(),
                AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(r4).setXor(22L).build()));
        a.sendTuples(FakeSm.tuple(1, 4, List.of("join3"), 21L, r3), FakeSm.tuple(1, 4, List.of("join4"), 22L, r4));
        fromA = a.receive(2, 2);
        assertEquals(2, fromA.acks.size());
        ledger.apply(fromA.acks);
        assertEquals(Set.of(r3, r4), new HashSet<>(fromA.tuples.get(0).getRootsList()));
        b.sendTuples(fromA.tuples.get(0));
        ledger.apply(b.receive(2, 0).acks);
        assertNotEquals(0L, ledger.of(r3));
        assertNotEquals(0L, ledger.of(r4));
        b.sendTuples(fromA.tuples.get(1));
        ledger.apply(b.receive(2, 0).acks);
        assertEquals(0L, ledger.of(r3));
        assertEquals(0L, ledger.of(r4));
        a.close();
        b.close();
    }

    @Test
    void failResetTimeoutDoubleAckAndUntrackedTuples() throws Exception {
        Topology topo = boltTopology(new AckingComponents.AnchoringBolt());
        FakeSm.Conn a = start(topo, "a-0", "a", 1);
        RootId r5 = FakeSm.root(4, 5L);
        RootId r6 = FakeSm.root(4, 6L);
        RootId r7 = FakeSm.root(4, 7L);
        RootId r8 = FakeSm.root(4, 8L);
        a.sendTuples(FakeSm.tuple(1, 4, List.of("fail"), 50L, r5, r6),
                FakeSm.tuple(1, 4, List.of("reset"), 70L, r7),
                FakeSm.tuple(1, 4, List.of("twice"), 80L, r8),
                FakeSm.tuple(1, 4, List.of("free"), 0L));
        FakeSm.Received got = a.receive(5, 2);
        List<String> seen = new ArrayList<>();
        for (AckEntry e : got.acks) {
            seen.add(e.getKind() + " " + e.getRoot().getKey() + " " + e.getXor());
        }
        assertEquals(List.of("ACK_KIND_FAIL 5 0", "ACK_KIND_FAIL 6 0", "ACK_KIND_RESET_TIMEOUT 7 0",
                "ACK_KIND_ACK 7 70", "ACK_KIND_ACK 8 80"), seen);
        for (TupleData td : got.tuples) {
            assertEquals(0, td.getRootsCount(), "an unanchored emit is untracked");
        }
        awaitEvent("a free ids {}");
        InstanceToStreamManager m = a.poll(200);
        assertNull(m, "the second ack of a tuple is ignored");
        a.close();
    }

    @Test
    void aBasicBoltAnchorsAcksAfterExecuteAndFailsOnFailedException() throws Exception {
        Topology topo = boltTopology(new BasicBoltExecutor(new AckingComponents.ExclaimBasic()));
        FakeSm.Conn a = start(topo, "a-0", "a", 1);
        RootId r = FakeSm.root(4, 9L);
        a.sendTuples(FakeSm.tuple(1, 4, List.of("good"), 90L, r));
        FakeSm.Received got = a.receive(1, 2);
        Ledger ledger = new Ledger();
        ledger.apply(List.of(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_INIT).setRoot(r).setXor(90L).build()));
        ledger.apply(got.acks);
        for (TupleData td : got.tuples) {
            assertEquals(List.of(r), td.getRootsList(), "basic bolt emits are anchored to the input");
            ledger.apply(List.of(AckEntry.newBuilder().setKind(AckKind.ACK_KIND_ACK).setRoot(r)
                    .setXor(td.getEdgeId()).build()));
        }
        assertEquals(0L, ledger.of(r));
        assertTrue(TestComponents.EVENTS.contains("basic good"));

        a.sendTuples(FakeSm.tuple(1, 4, List.of("bad"), 91L, FakeSm.root(4, 10L)));
        got = a.receive(1, 0);
        assertEquals(AckKind.ACK_KIND_FAIL, got.acks.get(0).getKind());
        assertEquals(10L, got.acks.get(0).getRoot().getKey());

        a.sendTuples(FakeSm.tuple(1, 4, List.of("report"), 92L, FakeSm.root(4, 11L)));
        boolean error = false;
        boolean failed = false;
        while (!(error && failed)) {
            InstanceToStreamManager m = a.poll(5000);
            assertTrue(m != null, "expected the reported error and the fail");
            if (m.getMessageCase() == InstanceToStreamManager.MessageCase.ERROR) {
                assertFalse(m.getError().getFatal());
                assertTrue(m.getError().getMessage().contains("reported input"));
                error = true;
            } else if (m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES
                    && m.getTuples().getAcksCount() > 0) {
                assertEquals(AckKind.ACK_KIND_FAIL, m.getTuples().getAcks(0).getKind());
                assertEquals(11L, m.getTuples().getAcks(0).getRoot().getKey());
                failed = true;
            }
        }
        a.close();
    }

    @Test
    void theSpoutFailsATreeWithNoOutcomeAfterThreeTimeouts() throws Exception {
        // Taken before the spout can emit: a slow delivery of the tuple cannot shorten the wait.
        long t0 = System.nanoTime();
        FakeSm.Conn c = start(spoutTopology(1, 1, "{\"topology.message.timeout.secs\": 1}"), "spout-0", "spout", 2);
        assertEquals(1, c.batches(1, 5000).size());
        awaitEvent("fail 0");
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(waited >= 2500, "failed after " + waited + " ms, before 3 x the timeout");
        c.close();
    }

    @Test
    void anInstanceReconnectsToARestartedStreamManagerAndReplaysItsPendingTrees() throws Exception {
        Topology topo = spoutTopology(1, 2, "{}");
        CompletableFuture<Integer> exit = sm.startInstance("spout-0", 2);
        FakeSm.Conn c1 = sm.accept("spout-0");
        c1.assign(FakeSm.assignment(topo, dir, "spout-0", "spout", 2));
        c1.awaitReady();
        assertEquals(2, c1.batches(2, 5000).stream().mapToInt(TupleBatch::getTuplesCount).sum());

        // The stream manager dies and comes back on the same path.
        c1.close();
        sm.unbind();
        Thread.sleep(300);
        assertFalse(exit.isDone());
        sm.bind();
        FakeSm.Conn c2 = sm.accept("spout-0");
        c2.assign(FakeSm.assignment(topo, dir, "spout-0", "spout", 2));
        c2.awaitReady();
        awaitEvent("fail 0");
        awaitEvent("fail 1");
        List<TupleData> replayed = new ArrayList<>();
        List<AckEntry> inits = new ArrayList<>();
        for (TupleBatch b : c2.batches(2, 5000)) {
            replayed.addAll(b.getTuplesList());
            inits.addAll(b.getAcksList());
        }
        assertEquals(2, replayed.size());
        assertEquals(2, inits.size());
        for (TupleData td : replayed) {
            c2.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, td.getRoots(0));
        }
        awaitEvent("ack 0");
        awaitEvent("ack 1");
        assertEquals(1, count("open 2"), "the task was kept, not reopened");

        // Gone for good: the instance gives up after its window.
        c2.close();
        sm.unbind();
        assertEquals(Instance.EXIT_CONNECTION_LOST, exit.get(10, TimeUnit.SECONDS));
        sm.bind();
    }

    @Test
    void aReconnectThatAssignsOtherTasksExits() throws Exception {
        Topology topo = boltTopology(new AckingComponents.AckingBolt());
        CompletableFuture<Integer> exit = sm.startInstance("b-0", 5);
        FakeSm.Conn c1 = sm.accept("b-0");
        c1.assign(FakeSm.assignment(topo, dir, "b-0", "b", 2, 3));
        c1.awaitReady();
        c1.close();
        FakeSm.Conn c2 = sm.accept("b-0");
        c2.assign(FakeSm.assignment(topo, dir, "b-0", "b", 2));
        assertEquals(Instance.EXIT_BAD_SETUP, exit.get(10, TimeUnit.SECONDS));
        c2.close();
    }
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Topology;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.grouping.PartialKeyGrouping;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

class RoutingTest {
    private static final TestComponents.NullBolt SINK = new TestComponents.NullBolt();
    private static final TestComponents.CountingSpout SPOUT = new TestComponents.CountingSpout(0);

    /** "sink" (tasks 1..n, sorted before "spout") subscribes to spout's default stream with g. */
    private static Topology oneHop(int sinkTasks, dev.egret.proto.Grouping g) {
        return Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{}")
                .addComponents(Plans.bolt("sink", sinkTasks, SINK).addInputs(Plans.input("spout", "default", g)))
                .addComponents(Plans.spout("spout", 1, SPOUT).addStreams(Plans.stream("default", "word", "n"))
                        .addStreams(Plans.directStream("direct", "word")))
                .build();
    }

    private static GroupingRouter router(Topology t, String component, int task, Map<Integer, Integer> taskContainer,
                                 int container) {
        TopologyView view = new TopologyView(t);
        TopologyContext ctx = new TopologyContext(view, task, List.of(task), "/tmp", "/tmp", null, null, null);
        return new GroupingRouter(view, component, ctx, taskContainer, container);
    }

    private static GroupingRouter router(Topology t) {
        TopologyView view = new TopologyView(t);
        int spoutTask = view.tasksOf("spout").get(0);
        return router(t, "spout", spoutTask, new HashMap<>(), 1);
    }

    @Test
    void fieldsGroupingMatchesStormsDeepHashCodeFloorMod() {
        GroupingRouter r = router(oneHop(4, Plans.fields("word")));
        for (String w : Arrays.asList("apple", "nathan", "mike", "", "golda", "bertels", "x")) {
            int expectedIndex = Math.floorMod(Arrays.deepHashCode(new Object[] {w}), 4);
            assertEquals(List.of(1 + expectedIndex), r.route(5, "default", Arrays.asList(w, 7)), w);
        }
    }

    @Test
    void fieldsGroupingSelectsValuesInTheGroupingsFieldOrder() {
        GroupingRouter r = router(oneHop(5, Plans.fields("n", "word")));
        int expectedIndex = Math.floorMod(Arrays.deepHashCode(new Object[] {42L, "k"}), 5);
        assertEquals(List.of(1 + expectedIndex), r.route(6, "default", Arrays.asList("k", 42L)));
        // A negative hash must still land on a valid task (floorMod, not %).
        Object[] negative = {Integer.MIN_VALUE};
        int negIndex = Math.floorMod(Arrays.deepHashCode(new Object[] {Integer.MIN_VALUE, "k"}), 5);
        assertTrue(Arrays.deepHashCode(negative) < 0);
        assertEquals(List.of(1 + negIndex), r.route(6, "default", Arrays.asList("k", Integer.MIN_VALUE)));
    }

    @Test
    void globalGroupingGoesToTheLowestTask() {
        GroupingRouter r = router(oneHop(3, Plans.fields()));
        for (int i = 0; i < 10; i++) {
            assertEquals(List.of(1), r.route(4, "default", Arrays.asList("w" + i, i)));
        }
    }

    @Test
    void allGroupingGoesToEveryTaskSorted() {
        GroupingRouter r = router(oneHop(3, Plans.all()));
        assertEquals(List.of(1, 2, 3), r.route(4, "default", Arrays.asList("w", 1)));
    }

    @Test
    void shuffleIsBalancedOverTheTargetTasksOnly() {
        GroupingRouter r = router(oneHop(4, Plans.shuffle()));
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            List<Integer> t = r.route(5, "default", Arrays.asList("w", i));
            assertEquals(1, t.size());
            counts.merge(t.get(0), 1, Integer::sum);
        }
        assertEquals(Set.of(1, 2, 3, 4), counts.keySet());
        for (int c : counts.values()) {
            assertEquals(100, c);
        }
    }

    @Test
    void noneGroupingPicksOneTargetTask() {
        GroupingRouter r = router(oneHop(3, Plans.none()));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            List<Integer> t = r.route(4, "default", Arrays.asList("w", i));
            assertEquals(1, t.size());
            seen.add(t.get(0));
        }
        assertTrue(Set.of(1, 2, 3).containsAll(seen));
    }

    @Test
    void localOrShufflePrefersTasksInTheEmittersContainer() {
        Topology t = oneHop(4, Plans.localOrShuffle());
        Map<Integer, Integer> containers = Map.of(1, 1, 2, 2, 3, 1, 4, 2, 5, 2);
        GroupingRouter r = router(t, "spout", 5, containers, 2);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            seen.addAll(r.route(5, "default", Arrays.asList("w", i)));
        }
        assertEquals(Set.of(2, 4), seen);

        GroupingRouter remote = router(t, "spout", 5, Map.of(1, 1, 2, 1, 3, 1, 4, 1, 5, 3), 3);
        Set<Integer> all = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            all.addAll(remote.route(5, "default", Arrays.asList("w", i)));
        }
        assertEquals(Set.of(1, 2, 3, 4), all);
    }

    @Test
    void directGroupingIsOnlyReachableThroughEmitDirect() {
        Topology t = Topology.newBuilder().setName("t").setConfigJson("{}")
                .addComponents(Plans.bolt("d", 2, SINK).addInputs(Plans.input("spout", "direct", Plans.direct())))
                .addComponents(Plans.bolt("s", 2, SINK).addInputs(Plans.input("spout", "default", Plans.shuffle())))
                .addComponents(Plans.spout("spout", 1, SPOUT).addStreams(Plans.stream("default", "word", "n"))
                        .addStreams(Plans.directStream("direct", "word")))
                .build();
        // d: 1,2  s: 3,4  spout: 5
        GroupingRouter r = router(t);
        assertTrue(r.routeDirect("direct", 2));
        assertFalse(r.routeDirect("direct", 5), "a task that does not subscribe gets nothing");
        IllegalArgumentException regular = assertThrows(IllegalArgumentException.class,
                () -> r.route(5, "direct", Arrays.asList("w")));
        assertTrue(regular.getMessage().contains("Cannot do regular emit to direct stream"));
        assertThrows(IllegalArgumentException.class, () -> r.routeDirect("default", 3));
    }

    @Test
    void undeclaredStreamThrows() {
        GroupingRouter r = router(oneHop(2, Plans.shuffle()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> r.route(3, "nope", Arrays.asList("w", 1)));
        assertTrue(e.getMessage().contains("spout:nope"), e.getMessage());
    }

    @Test
    void customGroupingIsPreparedWithSortedTargetsAndChooses() {
        TestComponents.HighestGrouping.PREPARED.clear();
        GroupingRouter r = router(oneHop(3, Plans.custom(new TestComponents.HighestGrouping())));
        assertEquals(List.of("spout:default [1, 2, 3]"), TestComponents.HighestGrouping.PREPARED);
        assertEquals(List.of(3), r.route(4, "default", Arrays.asList("w", 1)));
    }

    @Test
    void partialKeyGroupingPicksOneOfTheKeysTwoCandidates() {
        GroupingRouter r = router(oneHop(8, Plans.custom(new PartialKeyGrouping(new Fields("word")))));
        PartialKeyGrouping.RandomTwoTaskAssignmentCreator creator = new PartialKeyGrouping.RandomTwoTaskAssignmentCreator();
        List<Integer> targets = List.of(1, 2, 3, 4, 5, 6, 7, 8);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            List<Integer> chosen = r.route(9, "default", Arrays.asList("hot", i));
            assertEquals(1, chosen.size());
            seen.add(chosen.get(0));
        }
        byte[] key = java.nio.ByteBuffer.allocate(4).putInt("hot".hashCode()).array();
        int[] candidates = creator.createAssignment(targets, key);
        Set<Integer> expected = new HashSet<>(List.of(candidates[0], candidates[1]));
        assertEquals(expected, seen, "a hot key is spread over exactly its two candidates");
    }

    @Test
    void murmur3MatchesTheReferenceVector() {
        // MurmurHash3_x64_128("The quick brown fox jumps over the lazy dog", seed 0).
        long[] h = Murmur3.hash128("The quick brown fox jumps over the lazy dog"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8), 0);
        assertEquals(0xe34bbc7bbc071b6cL, h[0]);
        assertEquals(0x7a433ca9c49a9347L, h[1]);
    }
}

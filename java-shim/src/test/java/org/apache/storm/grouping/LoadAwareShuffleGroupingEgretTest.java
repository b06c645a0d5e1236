package org.apache.storm.grouping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.task.WorkerTopologyContext;
import org.junit.jupiter.api.Test;

/** On Egret's context (no task-to-worker map) every target is in the widest scope, and loads still steer. */
class LoadAwareShuffleGroupingEgretTest {
    @Test
    void withoutLocalityEveryTargetIsInScopeAndBusyOnesGetLess() {
        WorkerTopologyContext context = new WorkerTopologyContext(null, new HashMap<>(), new HashMap<>(),
                new HashMap<>(), new HashMap<>(), "topo", null, null, 0, Arrays.asList(1), null, null);
        LoadAwareShuffleGrouping g = new LoadAwareShuffleGrouping();
        g.prepare(context, null, Arrays.asList(4, 5));
        assertEquals(LoadAwareShuffleGrouping.LocalityScope.EVERYTHING, g.getCurrentScope());
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < g.getCapacity(); i++) {
            seen.merge(g.chooseTasks(1, null).get(0), 1, Integer::sum);
        }
        assertEquals(500, seen.get(4));
        assertEquals(500, seen.get(5));

        LoadMapping load = new LoadMapping();
        Map<Integer, Double> local = new HashMap<>();
        local.put(4, 1.0);
        local.put(5, 0.0);
        load.setLocal(local);
        for (int i = 0; i < 10; i++) {
            g.refreshLoad(load);
        }
        seen.clear();
        for (int i = 0; i < g.getCapacity(); i++) {
            seen.merge(g.chooseTasks(1, null).get(0), 1, Integer::sum);
        }
        assertTrue(seen.getOrDefault(4, 0) == 0 && seen.get(5) == 1000, seen.toString());
    }

    @Test
    void noTargetsIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> new LoadAwareShuffleGrouping().prepare(null, null, Arrays.asList()));
    }
}

package org.apache.storm.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.NullStruct;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.grouping.LoadAwareCustomStreamGrouping;
import org.apache.storm.grouping.LoadAwareShuffleGrouping;
import org.apache.storm.grouping.ShuffleGrouping;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.TupleUtils;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class GrouperFactoryTest {
    private static final List<Integer> TARGETS = List.of(7, 3, 5);
    private static final Fields OUT = new Fields("word", "count");

    private static LoadAwareCustomStreamGrouping make(Grouping g, Map<String, Object> conf) {
        return GrouperFactory.mkGrouper(null, "comp", "stream", OUT, g, TARGETS, conf);
    }

    @Test
    void shuffleIsLoadAwareUnlessDisabled() {
        assertInstanceOf(LoadAwareShuffleGrouping.class, make(Grouping.shuffle(new NullStruct()), Map.of()));
        assertInstanceOf(LoadAwareShuffleGrouping.class, make(Grouping.local_or_shuffle(new NullStruct()), Map.of()));
        LoadAwareCustomStreamGrouping plain = make(Grouping.shuffle(new NullStruct()),
                Map.of(Config.TOPOLOGY_DISABLE_LOADAWARE_MESSAGING, true));
        assertInstanceOf(GrouperFactory.BasicLoadAwareCustomStreamGrouping.class, plain);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            seen.addAll(plain.chooseTasks(1, List.of("a", 1)));
        }
        assertEquals(Set.copyOf(TARGETS), seen);
        assertTrue(new ShuffleGrouping() instanceof CustomStreamGrouping);
    }

    @Test
    void fieldsGroupsByTheKeysHashInTargetOrderAndEmptyFieldsIsGlobal() {
        LoadAwareCustomStreamGrouping fields = make(Grouping.fields(List.of("word")), Map.of());
        for (String w : List.of("a", "b", "storm", "egret")) {
            int index = TupleUtils.chooseTaskIndex(Collections.singletonList(w), TARGETS.size());
            assertEquals(List.of(TARGETS.get(index)), fields.chooseTasks(1, Arrays.asList(w, 1)));
        }
        LoadAwareCustomStreamGrouping global = make(Grouping.fields(List.of()), Map.of());
        assertEquals(List.of(3), global.chooseTasks(1, List.of("a", 1)));
    }

    @Test
    void allNoneDirectAndCustom() {
        assertEquals(TARGETS, make(Grouping.all(new NullStruct()), Map.of()).chooseTasks(1, List.of("a", 1)));
        List<Integer> one = make(Grouping.none(new NullStruct()), Map.of()).chooseTasks(1, List.of("a", 1));
        assertEquals(1, one.size());
        assertTrue(TARGETS.contains(one.get(0)));
        assertSame(GrouperFactory.DIRECT, make(Grouping.direct(new NullStruct()), Map.of()));

        LoadAwareCustomStreamGrouping custom = make(Grouping.custom_serialized(Utils.javaSerialize(new Last())), Map.of());
        assertInstanceOf(GrouperFactory.BasicLoadAwareCustomStreamGrouping.class, custom);
        assertEquals(List.of(5), custom.chooseTasks(1, List.of("a", 1)), "prepared with the target tasks");
    }

    /** Sends everything to the last target task. */
    static class Last implements CustomStreamGrouping {
        private List<Integer> targets;

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            targets = targetTasks;
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return List.of(targets.get(targets.size() - 1));
        }
    }
}

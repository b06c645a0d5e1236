package org.apache.storm.streams.processors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.storm.state.InMemoryKeyValueState;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.StateUpdater;
import org.apache.storm.streams.operations.aggregators.Count;
import org.junit.jupiter.api.Test;

/** The processors' forwarding, windowed or not (Storm's own tests cover joins and co-groups only). */
class ProcessorsTest {
    /** Records what a processor forwards, and on which stream. */
    static final class Recording implements ProcessorContext<Object> {
        private static final long serialVersionUID = 1L;
        final List<Object> forwarded = new ArrayList<>();
        final List<String> streams = new ArrayList<>();
        final Set<String> windowedParents;

        Recording(Set<String> windowedParents) {
            this.windowedParents = windowedParents;
        }

        @Override
        public void forward(Object input) {
            forward(input, "default");
        }

        @Override
        public void forward(Object input, String stream) {
            forwarded.add(input);
            streams.add(stream);
        }

        @Override
        public boolean isWindowed() {
            return !windowedParents.isEmpty();
        }

        @Override
        public Set<String> getWindowedParentStreams() {
            return windowedParents;
        }
    }

    @Test
    void aggregationsForwardEachUpdateUnlessWindowed() {
        Recording ctx = new Recording(Set.of());
        AggregateByKeyProcessor<String, String, Long, Long> counts = new AggregateByKeyProcessor<>(new Count<>());
        counts.init(ctx);
        counts.execute(Pair.of("a", "x"), "s1");
        counts.execute(Pair.of("a", "y"), "s1");
        counts.execute(Pair.of("b", "z"), "s1");
        assertEquals(List.of(Pair.of("a", 1L), Pair.of("a", 2L), Pair.of("b", 1L)), ctx.forwarded);
    }

    @Test
    void aWindowEndsWhenEveryWindowedParentPunctuates() {
        Recording ctx = new Recording(Set.of("s1", "s2"));
        ReduceProcessor<Integer> sum = new ReduceProcessor<>(Integer::sum);
        sum.init(ctx);
        sum.execute(1, "s1");
        sum.execute(2, "s2");
        sum.punctuate("s1");
        assertEquals(List.of(), ctx.forwarded, "one parent's punctuation does not end the window");
        sum.execute(3, "s1");
        sum.punctuate("s2");
        assertEquals(List.of(6, "__punctuation"), ctx.forwarded);
        sum.punctuate("s1");
        assertEquals(2, ctx.forwarded.size(), "a new window starts afresh");
    }

    @Test
    void branchesGoToTheFirstMatchingPredicateAndStateUpdatesPersist() {
        Recording ctx = new Recording(Set.of());
        BranchProcessor<Integer> branch = new BranchProcessor<>();
        branch.addPredicate(x -> x % 2 == 0, "even");
        branch.addPredicate(x -> x > 0, "positive");
        branch.init(ctx);
        branch.execute(4, "s");
        branch.execute(3, "s");
        branch.execute(-1, "s");
        assertEquals(List.of("even", "positive"), ctx.streams);

        Recording out = new Recording(Set.of());
        InMemoryKeyValueState<String, Long> state = new InMemoryKeyValueState<>();
        UpdateStateByKeyProcessor<String, Long, Long> update =
                new UpdateStateByKeyProcessor<>(StateUpdater.of(10L, Long::sum));
        update.init(out);
        update.initState(state);
        update.execute(Pair.of("k", 1L), "s");
        update.execute(Pair.of("k", 2L), "s");
        assertEquals(List.of(Pair.of("k", 11L), Pair.of("k", 13L)), out.forwarded);
        assertEquals(13L, state.get("k"));
    }
}

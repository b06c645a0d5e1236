package org.apache.storm.streams.processors;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.CombinerAggregator;

/** Merges partial accumulators per key; forwards as {@link AggregateByKeyProcessor} does. */
public class MergeAggregateByKeyProcessor<K, V, A, R> extends BaseProcessor<Pair<K, A>> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    protected final CombinerAggregator<V, A, R> aggregator;
    protected final Map<K, A> state = new HashMap<>();

    public MergeAggregateByKeyProcessor(CombinerAggregator<V, A, R> aggregator) {
        this.aggregator = aggregator;
    }

    @Override
    public void execute(Pair<K, A> input) {
        K key = input.getFirst();
        A acc = state.get(key);
        state.put(key, aggregator.merge(acc == null ? aggregator.init() : acc, input.getSecond()));
        mayBeForwardAggUpdate(() -> Pair.of(key, aggregator.result(state.get(key))));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        for (Map.Entry<K, A> e : state.entrySet()) {
            context.forward(Pair.of(e.getKey(), aggregator.result(e.getValue())));
        }
        state.clear();
    }
}

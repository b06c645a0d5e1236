package org.apache.storm.streams.processors;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.Reducer;

/** Reduces the values per key; forwards as {@link AggregateByKeyProcessor} does. */
public class ReduceByKeyProcessor<K, V> extends BaseProcessor<Pair<K, V>> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    private final Reducer<V> reducer;
    private final Map<K, V> state = new HashMap<>();

    public ReduceByKeyProcessor(Reducer<V> reducer) {
        this.reducer = reducer;
    }

    @Override
    public void execute(Pair<K, V> input) {
        K key = input.getFirst();
        V agg = state.get(key);
        state.put(key, agg == null ? input.getSecond() : reducer.apply(agg, input.getSecond()));
        mayBeForwardAggUpdate(() -> Pair.of(key, state.get(key)));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        for (Map.Entry<K, V> e : state.entrySet()) {
            context.forward(Pair.of(e.getKey(), e.getValue()));
        }
        state.clear();
    }
}

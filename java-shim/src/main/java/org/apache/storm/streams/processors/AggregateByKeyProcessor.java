package org.apache.storm.streams.processors;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.CombinerAggregator;

/**
 * Aggregates the values per key; forwards the key's result (or accumulator, with
 * {@code emitAggregate}) after each value, or every key's at the window's end when windowed.
 */
public class AggregateByKeyProcessor<K, V, A, R> extends BaseProcessor<Pair<K, V>> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    private final CombinerAggregator<V, A, R> aggregator;
    private final boolean emitAggregate;
    private final Map<K, A> state = new HashMap<>();

    public AggregateByKeyProcessor(CombinerAggregator<V, A, R> aggregator) {
        this(aggregator, false);
    }

    public AggregateByKeyProcessor(CombinerAggregator<V, A, R> aggregator, boolean emitAggregate) {
        this.aggregator = aggregator;
        this.emitAggregate = emitAggregate;
    }

    @Override
    public void execute(Pair<K, V> input) {
        K key = input.getFirst();
        A acc = state.get(key);
        state.put(key, aggregator.apply(acc == null ? aggregator.init() : acc, input.getSecond()));
        mayBeForwardAggUpdate(() -> Pair.of(key, aggregate(key)));
    }

    private Object aggregate(K key) {
        return emitAggregate ? state.get(key) : aggregator.result(state.get(key));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        for (K key : state.keySet()) {
            context.forward(Pair.of(key, aggregate(key)));
        }
        state.clear();
    }

    @Override
    public String toString() {
        return "AggregateByKeyProcessor{aggregator=" + aggregator + ", emitAggregate=" + emitAggregate
                + ", state=" + state + "}";
    }
}

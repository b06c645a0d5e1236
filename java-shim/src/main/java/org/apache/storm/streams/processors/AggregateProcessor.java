package org.apache.storm.streams.processors;

import org.apache.storm.streams.operations.CombinerAggregator;

/**
 * Aggregates every value; forwards the result (or, with {@code emitAggregate}, the
 * accumulator, for a later merge) after each value, or at the window's end when windowed.
 */
public class AggregateProcessor<T, A, R> extends BaseProcessor<T> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    private final CombinerAggregator<T, A, R> aggregator;
    private final boolean emitAggregate;
    private A state;

    public AggregateProcessor(CombinerAggregator<T, A, R> aggregator) {
        this(aggregator, false);
    }

    public AggregateProcessor(CombinerAggregator<T, A, R> aggregator, boolean emitAggregate) {
        this.aggregator = aggregator;
        this.emitAggregate = emitAggregate;
    }

    @Override
    public void execute(T input) {
        if (state == null) {
            state = aggregator.init();
        }
        state = aggregator.apply(state, input);
        mayBeForwardAggUpdate(this::current);
    }

    private Object current() {
        return emitAggregate ? state : aggregator.result(state);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        if (state != null) {
            context.forward(current());
            state = null;
        }
    }

    @Override
    public String toString() {
        return "AggregateProcessor{aggregator=" + aggregator + ", emitAggregate=" + emitAggregate + ", state="
                + state + "}";
    }
}

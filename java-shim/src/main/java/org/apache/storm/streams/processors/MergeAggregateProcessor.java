package org.apache.storm.streams.processors;

import org.apache.storm.streams.operations.CombinerAggregator;

/** Merges partial accumulators; forwards the result as {@link AggregateProcessor} does. */
public class MergeAggregateProcessor<T, A, R> extends BaseProcessor<A> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    private final CombinerAggregator<T, A, R> aggregator;
    private A state;

    public MergeAggregateProcessor(CombinerAggregator<T, A, R> aggregator) {
        this.aggregator = aggregator;
    }

    @Override
    protected void execute(A input) {
        state = aggregator.merge(state == null ? aggregator.init() : state, input);
        mayBeForwardAggUpdate(() -> aggregator.result(state));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        if (state != null) {
            context.forward(aggregator.result(state));
            state = null;
        }
    }
}

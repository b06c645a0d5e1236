package org.apache.storm.streams.processors;

import org.apache.storm.streams.operations.Reducer;

/** Reduces every value; forwards the reduction as {@link AggregateProcessor} does. */
public class ReduceProcessor<T> extends BaseProcessor<T> implements BatchProcessor {
    private static final long serialVersionUID = 1L;
    private final Reducer<T> reducer;
    private T agg;

    public ReduceProcessor(Reducer<T> reducer) {
        this.reducer = reducer;
    }

    @Override
    public void execute(T input) {
        agg = agg == null ? input : reducer.apply(agg, input);
        mayBeForwardAggUpdate(() -> agg);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void finish() {
        if (agg != null) {
            context.forward(agg);
            agg = null;
        }
    }
}

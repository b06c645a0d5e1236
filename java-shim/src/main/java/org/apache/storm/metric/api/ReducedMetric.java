package org.apache.storm.metric.api;

/** A metric whose bucket value is the reduction of every update made in the bucket. */
public class ReducedMetric implements IMetric {
    private final IReducer reducer;
    private Object accumulator;

    @SuppressWarnings("unchecked")
    public ReducedMetric(IReducer reducer) {
        this.reducer = reducer;
        this.accumulator = reducer.init();
    }

    @SuppressWarnings("unchecked")
    public void update(Object value) {
        accumulator = reducer.reduce(accumulator, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object getValueAndReset() {
        Object result = reducer.extractResult(accumulator);
        accumulator = reducer.init();
        return result;
    }
}

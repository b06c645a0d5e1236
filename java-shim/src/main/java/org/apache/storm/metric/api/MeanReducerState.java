package org.apache.storm.metric.api;

/** Running count and sum of a {@link MeanReducer}. */
class MeanReducerState {
    public int count = 0;
    public double sum = 0.0;

    MeanReducerState() {
    }
}

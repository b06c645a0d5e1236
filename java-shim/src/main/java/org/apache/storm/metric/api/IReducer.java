package org.apache.storm.metric.api;

/** Folds the values given to a {@link ReducedMetric} into one result per bucket. */
public interface IReducer<T> {
    T init();

    T reduce(T accumulator, Object input);

    Object extractResult(T accumulator);
}

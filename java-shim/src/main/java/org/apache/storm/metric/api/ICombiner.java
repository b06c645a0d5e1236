package org.apache.storm.metric.api;

/** Combines the values given to a {@link CombinedMetric}: an associative operation with an identity. */
public interface ICombiner<T> {
    T identity();

    T combine(T a, T b);
}

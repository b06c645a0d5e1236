package org.apache.storm.streams.operations;

/** Maps a value to any number of values. */
@FunctionalInterface
public interface FlatMapFunction<T, R> extends Function<T, Iterable<R>> {
}

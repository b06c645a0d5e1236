package org.apache.storm.streams.operations;

import org.apache.storm.streams.Pair;

/** Maps a value to any number of key-value pairs. */
@FunctionalInterface
public interface PairFlatMapFunction<T, K, V> extends FlatMapFunction<T, Pair<K, V>> {
}

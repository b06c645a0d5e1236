package org.apache.storm.streams.operations;

import org.apache.storm.streams.Pair;

/** Maps a value to a key and a value. */
@FunctionalInterface
public interface PairFunction<T, K, V> extends Function<T, Pair<K, V>> {
}

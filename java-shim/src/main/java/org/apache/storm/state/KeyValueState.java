package org.apache.storm.state;

import java.util.Map;

/** A {@link State} holding key-value pairs. */
public interface KeyValueState<K, V> extends State, Iterable<Map.Entry<K, V>> {
    void put(K key, V value);

    V get(K key);

    V get(K key, V defaultValue);

    /** Removes the key, returning its value or null. */
    V delete(K key);
}

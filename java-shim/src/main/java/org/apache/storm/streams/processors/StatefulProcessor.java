package org.apache.storm.streams.processors;

import org.apache.storm.state.KeyValueState;

/** A processor over a key-value state, given it when the bolt's state is initialized. */
public interface StatefulProcessor<K, V> {
    void initState(KeyValueState<K, V> keyValueState);
}

package org.apache.storm.streams;

import java.io.Serializable;

/**
 * The state {@link PairStream#updateStateByKey} keeps: a stream of each key's updated
 * value, which {@link Stream#stateQuery} can query by key.
 */
public class StreamState<K, V> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final transient PairStream<K, V> stream;

    StreamState(PairStream<K, V> stream) {
        this.stream = stream;
    }

    public PairStream<K, V> toPairStream() {
        return stream;
    }

    /** The node that updates the state. */
    ProcessorNode getUpdateStateNode() {
        return (ProcessorNode) stream.node;
    }
}

package org.apache.storm.streams.operations;

import org.apache.storm.streams.Pair;

/** Joins two values into a {@link Pair} of them. */
public class PairValueJoiner<V1, V2> implements ValueJoiner<V1, V2, Pair<V1, V2>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Pair<V1, V2> apply(V1 value1, V2 value2) {
        return Pair.of(value1, value2);
    }
}

package org.apache.storm.streams.operations.mappers;

import org.apache.storm.streams.operations.Function;
import org.apache.storm.tuple.Tuple;

/** Turns a spout's tuple into a stream's value. */
@FunctionalInterface
public interface TupleValueMapper<T> extends Function<Tuple, T> {
}

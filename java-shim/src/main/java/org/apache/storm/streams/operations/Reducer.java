package org.apache.storm.streams.operations;

/** Combines two values of a type into one of the same type. */
@FunctionalInterface
public interface Reducer<T> extends BiFunction<T, T, T> {
    @Override
    T apply(T arg1, T arg2);
}

package org.apache.storm.streams.operations;

/** Maps two values to one. */
@FunctionalInterface
public interface BiFunction<T, U, R> extends Operation {
    R apply(T t, U u);
}

package org.apache.storm.streams.operations;

/** Maps a value to another. */
@FunctionalInterface
public interface Function<T, R> extends Operation {
    R apply(T input);
}

package org.apache.storm.streams.operations;

/** Takes each value, returning nothing. */
@FunctionalInterface
public interface Consumer<T> extends Operation {
    void accept(T input);
}

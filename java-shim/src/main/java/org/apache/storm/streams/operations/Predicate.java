package org.apache.storm.streams.operations;

/** Tests each value. */
@FunctionalInterface
public interface Predicate<T> extends Operation {
    boolean test(T input);
}

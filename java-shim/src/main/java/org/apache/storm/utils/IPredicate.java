package org.apache.storm.utils;

/** A test on one object (Storm's predicate type for {@code Utils.findOne}). */
public interface IPredicate<T> {
    boolean test(T obj);
}

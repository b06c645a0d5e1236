package org.apache.storm.testing;

/** A spout that can tell when it has emitted everything it will. */
public interface CompletableSpout {
    /** Whether every tuple was emitted and completed. */
    boolean isExhausted();

    /** Clears any global state the spout keeps. */
    default void clean() {
    }

    /** Prepares the spout's global state. */
    default void startup() {
    }
}

package org.apache.storm.utils;

/** A long that a lambda or an inner class can change; not thread-safe. */
public class MutableLong {
    private long value;

    public MutableLong(long value) {
        this.value = value;
    }

    public void set(long value) {
        this.value = value;
    }

    public long get() {
        return value;
    }

    /** Adds one and returns the new value. */
    public long increment() {
        return increment(1);
    }

    /** Adds {@code amount} and returns the new value. */
    public long increment(long amount) {
        value += amount;
        return value;
    }
}

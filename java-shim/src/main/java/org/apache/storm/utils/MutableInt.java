package org.apache.storm.utils;

/** An int that a lambda or an inner class can change; not thread-safe. */
public class MutableInt {
    private int value;

    public MutableInt(int value) {
        this.value = value;
    }

    public void set(int value) {
        this.value = value;
    }

    public int get() {
        return value;
    }

    /** Adds one and returns the new value. */
    public int increment() {
        return increment(1);
    }

    /** Adds {@code amount} and returns the new value. */
    public int increment(int amount) {
        value += amount;
        return value;
    }
}

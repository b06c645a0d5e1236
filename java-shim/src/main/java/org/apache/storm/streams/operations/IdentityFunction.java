package org.apache.storm.streams.operations;

/** Returns its input. */
public class IdentityFunction<T> implements Function<T, T> {
    private static final long serialVersionUID = 1L;

    @Override
    public T apply(T input) {
        return input;
    }
}

package org.apache.storm.streams.processors;

import org.apache.storm.streams.operations.Function;

/** Forwards the function of each value. */
public class MapProcessor<T, R> extends BaseProcessor<T> {
    private static final long serialVersionUID = 1L;
    private final Function<T, R> function;

    public MapProcessor(Function<T, R> function) {
        this.function = function;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(T input) {
        context.forward(function.apply(input));
    }
}

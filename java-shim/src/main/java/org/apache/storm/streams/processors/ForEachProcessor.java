package org.apache.storm.streams.processors;

import org.apache.storm.streams.operations.Consumer;

/** Hands each value to the consumer; forwards nothing (a sink). */
public class ForEachProcessor<T> extends BaseProcessor<T> {
    private static final long serialVersionUID = 1L;
    private final Consumer<T> consumer;

    public ForEachProcessor(Consumer<T> consumer) {
        this.consumer = consumer;
    }

    @Override
    public void execute(T input) {
        consumer.accept(input);
    }
}

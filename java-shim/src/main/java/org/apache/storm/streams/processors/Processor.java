package org.apache.storm.streams.processors;

import java.io.Serializable;

/**
 * Runs one operation of a stream inside the bolt that hosts it, forwarding its results
 * through its {@link ProcessorContext}.
 */
public interface Processor<T> extends Serializable {
    /** Called once, before any value. */
    void init(ProcessorContext context);

    /** One value, from the parent stream {@code streamId}. */
    void execute(T input, String streamId);

    /** The end of a window on the parent stream {@code stream} (every windowed parent ends it). */
    void punctuate(String stream);
}

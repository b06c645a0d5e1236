package org.apache.storm.streams.processors;

import java.io.Serializable;
import java.util.Set;

/** Where a processor sends its results: the next processors of the bolt, or the bolt's output. */
public interface ProcessorContext<T> extends Serializable {
    /** Sends a value to every child. */
    void forward(T input);

    /** Sends a value to the children on {@code stream}. */
    void forward(T input, String stream);

    /** Whether the processor runs over windows (its results then come at each window's end). */
    boolean isWindowed();

    /** The windowed streams whose punctuations end this processor's window. */
    Set<String> getWindowedParentStreams();
}

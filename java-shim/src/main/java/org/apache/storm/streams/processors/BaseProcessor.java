package org.apache.storm.streams.processors;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The common processor: {@link #execute(Object, String)} goes to {@link #execute(Object)};
 * a punctuation ends the window once every windowed parent stream has sent one, which
 * calls {@link #finish} and forwards the punctuation. Aggregations forward each update
 * at once when not windowed ({@link #mayBeForwardAggUpdate}), and their result at the
 * window's end when windowed.
 */
abstract class BaseProcessor<T> implements Processor<T> {
    private static final long serialVersionUID = 1L;
    /** Storm's punctuation value ({@code WindowNode.PUNCTUATION}). */
    static final String PUNCTUATION = "__punctuation";

    private final Set<String> punctuationState = new HashSet<>();
    protected ProcessorContext context;

    @Override
    public void init(ProcessorContext context) {
        this.context = context;
    }

    @Override
    public void execute(T input, String streamId) {
        execute(input);
    }

    protected void execute(T input) {
    }

    @Override
    @SuppressWarnings("unchecked")
    public void punctuate(String stream) {
        if (stream == null || shouldPunctuate(stream)) {
            finish();
            context.forward(PUNCTUATION);
            punctuationState.clear();
        }
    }

    /** The end of a window: forward the aggregate, if any. */
    protected void finish() {
    }

    /** Forwards an aggregate's update now unless the aggregation is windowed. */
    @SuppressWarnings("unchecked")
    protected final <R> void mayBeForwardAggUpdate(Supplier<R> result) {
        if (!context.isWindowed()) {
            context.forward(result.get());
        }
    }

    private boolean shouldPunctuate(String parentStream) {
        punctuationState.add(parentStream);
        return punctuationState.equals(context.getWindowedParentStreams());
    }
}

package org.apache.storm.streams;

import java.util.Collections;
import java.util.Set;
import org.apache.storm.streams.processors.BatchProcessor;
import org.apache.storm.streams.processors.Processor;
import org.apache.storm.streams.processors.ProcessorContext;
import org.apache.storm.tuple.Fields;

/** A processor of a stream (map, filter, aggregate, join, ...) and the stream it produces. */
public class ProcessorNode extends Node {
    private static final long serialVersionUID = 1L;

    private final Processor<?> processor;
    private final boolean isBatch;
    private final boolean preservesKey;
    /** The parent streams whose punctuations end this processor's window. */
    private Set<String> windowedParentStreams = Collections.emptySet();

    public ProcessorNode(Processor<?> processor, String outputStream, Fields outputFields, boolean preservesKey) {
        super(outputStream, outputFields);
        this.processor = processor;
        this.isBatch = processor instanceof BatchProcessor;
        this.preservesKey = preservesKey;
    }

    public ProcessorNode(Processor<?> processor, String outputStream, Fields outputFields) {
        this(processor, outputStream, outputFields, false);
    }

    public Processor<?> getProcessor() {
        return processor;
    }

    public boolean isBatch() {
        return isBatch;
    }

    public Set<String> getWindowedParentStreams() {
        return Collections.unmodifiableSet(windowedParentStreams);
    }

    void setWindowedParentStreams(Set<String> windowedParentStreams) {
        this.windowedParentStreams = windowedParentStreams;
    }

    void initProcessorContext(ProcessorContext context) {
        processor.init(context);
    }

    public boolean isPreservesKey() {
        return preservesKey;
    }

    @Override
    public String toString() {
        return "ProcessorNode{processor=" + processor + ", isBatch=" + isBatch + ", preservesKey=" + preservesKey
                + ", windowedParentStreams=" + windowedParentStreams + ", " + super.toString() + "}";
    }

    @Override
    public void setEmitsPair(boolean emitsPair) {
        super.setEmitsPair(emitsPair);
    }

    @Override
    public boolean emitsPair() {
        return super.emitsPair();
    }

    @Override
    public void setWindowed(boolean windowed) {
        super.setWindowed(windowed);
    }

    @Override
    public boolean isWindowed() {
        return super.isWindowed();
    }

    @Override
    public Fields getOutputFields() {
        return super.getOutputFields();
    }
}

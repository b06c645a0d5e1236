package org.apache.storm.streams.processors;

import java.util.Set;
import org.apache.storm.shade.com.google.common.collect.Multimap;
import org.apache.storm.streams.ProcessorNode;
import org.apache.storm.streams.StreamUtil;

/** Hands a processor's results to its children inside the same bolt, by stream. */
public class ForwardingProcessorContext<T> implements ProcessorContext<T> {
    private static final long serialVersionUID = 1L;

    private final ProcessorNode processorNode;
    private final Multimap<String, ProcessorNode> streamToChildren;
    private final Set<String> streams;

    public ForwardingProcessorContext(ProcessorNode processorNode, Multimap<String, ProcessorNode> streamToChildren) {
        this.processorNode = processorNode;
        this.streamToChildren = streamToChildren;
        this.streams = streamToChildren.keySet();
    }

    @Override
    public void forward(T input) {
        if (StreamUtil.isPunctuation(input)) {
            finishAllStreams();
        } else {
            executeAllStreams(input);
        }
    }

    @Override
    public void forward(T input, String stream) {
        if (!streams.contains(stream)) {
            return;
        }
        if (StreamUtil.isPunctuation(input)) {
            finish(stream);
        } else {
            execute(input, stream);
        }
    }

    @Override
    public boolean isWindowed() {
        return processorNode.isWindowed();
    }

    @Override
    public Set<String> getWindowedParentStreams() {
        return processorNode.getWindowedParentStreams();
    }

    private void finishAllStreams() {
        for (String stream : streams) {
            finish(stream);
        }
    }

    private <T> void finish(String stream) {
        for (ProcessorNode child : streamToChildren.get(stream)) {
            child.getProcessor().punctuate(stream);
        }
    }

    private <T> void executeAllStreams(T input) {
        for (String stream : streams) {
            execute(input, stream);
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void execute(T input, String stream) {
        for (ProcessorNode child : streamToChildren.get(stream)) {
            ((Processor<T>) child.getProcessor()).execute(input, stream);
        }
    }
}

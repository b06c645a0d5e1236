package org.apache.storm.streams.processors;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.ProcessorNode;
import org.apache.storm.streams.RefCountedTuple;
import org.apache.storm.streams.StreamUtil;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * Emits a processor's results on one of the bolt's output streams: a pair as its key and
 * value fields, any other value as one field, then the event time when the topology has a
 * timestamp field; a punctuation on the stream's punctuation stream. Outputs are anchored
 * to the input being processed or, for a windowed processor, to every input of the window,
 * which are acked once the window's punctuation is emitted.
 */
public class EmittingProcessorContext<T> implements ProcessorContext<T> {
    private static final long serialVersionUID = 1L;

    private final ProcessorNode processorNode;
    private final String outputStreamId;
    private final String punctuationStreamId;
    private final transient OutputCollector collector;
    private final Values punctuation;
    private final List<RefCountedTuple> anchors = new ArrayList<>();
    private long eventTimestamp;
    private String timestampField;

    public EmittingProcessorContext(ProcessorNode processorNode, OutputCollector collector, String outputStreamId) {
        this.processorNode = processorNode;
        this.collector = collector;
        this.outputStreamId = outputStreamId;
        this.punctuationStreamId = StreamUtil.getPunctuationStream(outputStreamId);
        this.punctuation = new Values(StreamUtil.getPunctuationFields().get(0));
    }

    @Override
    public void forward(T input) {
        if (StreamUtil.isPunctuation(input)) {
            emit(punctuation, punctuationStreamId);
            maybeAck();
        } else if (processorNode.emitsPair()) {
            Pair<?, ?> pair = (Pair<?, ?>) input;
            emit(withTimestamp(new Values(pair.getFirst(), pair.getSecond())), outputStreamId);
        } else {
            emit(withTimestamp(new Values(input)), outputStreamId);
        }
    }

    @Override
    public void forward(T input, String stream) {
        if (stream.equals(outputStreamId)) {
            forward(input);
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

    public void setTimestampField(String fieldName) {
        this.timestampField = fieldName;
    }

    /**
     * The input now processed: the only anchor, or, when windowed, one more anchor held
     * until the window's end.
     */
    public void setAnchor(RefCountedTuple anchor) {
        if (processorNode.isWindowed()) {
            anchors.add(anchor);
            anchor.increment();
        } else {
            anchors.clear();
            anchors.add(anchor);
        }
    }

    public void setEventTimestamp(long timestamp) {
        this.eventTimestamp = timestamp;
    }

    private Values withTimestamp(Values values) {
        if (timestampField != null) {
            values.add(eventTimestamp);
        }
        return values;
    }

    /** After a window's end: releases its anchors, acking those no other output holds. */
    private void maybeAck() {
        if (!processorNode.isWindowed()) {
            return;
        }
        for (RefCountedTuple anchor : anchors) {
            anchor.decrement();
            if (anchor.shouldAck()) {
                collector.ack(anchor.tuple());
                anchor.setAcked();
            }
        }
        anchors.clear();
    }

    private Collection<Tuple> tuples(Collection<RefCountedTuple> refs) {
        List<Tuple> out = new ArrayList<>(refs.size());
        for (RefCountedTuple ref : refs) {
            out.add(ref.tuple());
        }
        return out;
    }

    private void emit(Values values, String stream) {
        if (anchors.isEmpty()) {
            collector.emit(stream, values);
        } else {
            collector.emit(stream, tuples(anchors), values);
        }
    }
}

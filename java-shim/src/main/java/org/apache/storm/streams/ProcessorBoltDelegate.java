package org.apache.storm.streams;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.shade.com.google.common.collect.ArrayListMultimap;
import org.apache.storm.shade.com.google.common.collect.HashBasedTable;
import org.apache.storm.shade.com.google.common.collect.Multimap;
import org.apache.storm.shade.com.google.common.collect.Table;
import org.apache.storm.shade.org.jgrapht.DirectedGraph;
import org.apache.storm.streams.processors.ChainedProcessorContext;
import org.apache.storm.streams.processors.EmittingProcessorContext;
import org.apache.storm.streams.processors.ForwardingProcessorContext;
import org.apache.storm.streams.processors.Processor;
import org.apache.storm.streams.processors.ProcessorContext;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the three stream bolts share: runs a group of processor nodes on the tuples of the
 * bolt's input streams. Each input stream goes to its initial processors; a processor's
 * results go to its children in the bolt (forwarding) and, when it has children elsewhere
 * or none, out of the bolt on its output streams (emitting; each with a punctuation stream).
 *
 * <p>A tuple from a spout is the value itself, keyed by the spout's component and stream; a
 * tuple from another stream bolt carries a value (field {@code value}) or a pair
 * ({@code key}, {@code value}). A punctuation reaches a processor once every task of the
 * source component has sent it.
 */
class ProcessorBoltDelegate implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ProcessorBoltDelegate.class);

    private final String id;
    private final DirectedGraph<Node, Edge> graph;
    private final List<ProcessorNode> nodes;
    private final List<ProcessorNode> outgoingProcessors = new ArrayList<>();
    private final Set<EmittingProcessorContext> emittingProcessorContexts = new HashSet<>();
    private final Table<ProcessorNode, String, Integer> punctuationState = HashBasedTable.create();
    private final Map<String, Integer> streamToInputTaskCount = new HashMap<>();
    private Map<String, Object> topoConf;
    private transient TopologyContext topologyContext;
    private transient OutputCollector outputCollector;
    private Multimap<String, ProcessorNode> streamToInitialProcessors;
    private String timestampField;

    ProcessorBoltDelegate(String id, DirectedGraph<Node, Edge> graph, List<ProcessorNode> nodes) {
        this.id = id;
        this.graph = graph;
        this.nodes = new ArrayList<>(nodes);
    }

    String getId() {
        return id;
    }

    void addNodes(Collection<ProcessorNode> nodes) {
        this.nodes.addAll(nodes);
    }

    List<ProcessorNode> getNodes() {
        return nodes;
    }

    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.topoConf = topoConf;
        this.topologyContext = context;
        this.outputCollector = collector;
        Set<ProcessorNode> inBolt = new HashSet<>(nodes);
        outgoingProcessors.clear();
        emittingProcessorContexts.clear();
        for (ProcessorNode node : nodes) {
            List<ProcessorContext> contexts = new ArrayList<>();
            Multimap<String, ProcessorNode> streamToChildren = ArrayListMultimap.create();
            boolean outgoing = false;
            List<Node> children = StreamUtil.getChildren(graph, node);
            for (Node child : children) {
                if (inBolt.contains(child)) {
                    for (String stream : child.getParentStreams(node)) {
                        streamToChildren.put(stream, (ProcessorNode) child);
                    }
                } else {
                    outgoing = true;
                }
            }
            if (!streamToChildren.isEmpty()) {
                contexts.add(new ForwardingProcessorContext<>(node, streamToChildren));
            }
            if (outgoing || children.isEmpty()) {
                outgoingProcessors.add(node);
                for (String stream : node.getOutputStreams()) {
                    contexts.add(createEmittingContext(node, stream));
                }
            }
            node.initProcessorContext(contexts.size() == 1 ? contexts.get(0)
                    : new ChainedProcessorContext<>(node, contexts));
        }
        streamToInputTaskCount.clear();
        Set<String> initialStreams = getInitialStreams();
        for (GlobalStreamId source : context.getThisSources().keySet()) {
            String stream = StreamUtil.getSourceStream(source.get_streamId());
            if (initialStreams.contains(stream)) {
                streamToInputTaskCount.put(stream, context.getComponentTasks(source.get_componentId()).size());
            }
        }
        LOG.debug("Stream bolt {} prepared: initial processors {}, outgoing {}", id, streamToInitialProcessors,
                outgoingProcessors);
    }

    /** Each outgoing processor's output streams, with their punctuation streams. */
    void declareOutputFields(OutputFieldsDeclarer declarer) {
        for (ProcessorNode node : outgoingProcessorNodes()) {
            List<String> fields = new ArrayList<>(node.getOutputFields().toList());
            if (timestampField != null) {
                fields.add(timestampField);
            }
            for (String stream : node.getOutputStreams()) {
                declarer.declareStream(stream, new Fields(fields));
                declarer.declareStream(StreamUtil.getPunctuationStream(stream), StreamUtil.getPunctuationFields());
            }
        }
    }

    /** The nodes with children outside the bolt or without children (declaring happens before prepare). */
    private List<ProcessorNode> outgoingProcessorNodes() {
        Set<ProcessorNode> inBolt = new HashSet<>(nodes);
        List<ProcessorNode> out = new ArrayList<>();
        for (ProcessorNode node : nodes) {
            List<Node> children = StreamUtil.getChildren(graph, node);
            if (children.isEmpty() || !inBolt.containsAll(children)) {
                out.add(node);
            }
        }
        return out;
    }

    void setAnchor(RefCountedTuple tuple) {
        for (EmittingProcessorContext context : emittingProcessorContexts) {
            context.setAnchor(tuple);
        }
    }

    /** The value a tuple carries and the input stream it belongs to. */
    Pair<Object, String> getValueAndStream(Tuple input) {
        String spoutStream = input.getSourceComponent() + ":" + input.getSourceStreamId();
        if (streamToInitialProcessors.containsKey(spoutStream)) {
            return Pair.of(input, spoutStream);
        }
        Object value = isPair(input) ? Pair.of(input.getValue(0), input.getValue(1)) : input.getValue(0);
        return Pair.of(value, StreamUtil.getSourceStream(input.getSourceStreamId()));
    }

    /** Runs a tuple through the processors; acks it unless a windowed output holds it. */
    void processAndAck(Tuple input) {
        RefCountedTuple refCountedTuple = new RefCountedTuple(input);
        setAnchor(refCountedTuple);
        Pair<Object, String> valueAndStream = getValueAndStream(input);
        if (isEventTimestamp() && !StreamUtil.isPunctuation(valueAndStream.getFirst())) {
            setEventTimestamp(input.getLongByField(getTimestampField()));
        }
        process(valueAndStream.getFirst(), valueAndStream.getSecond());
        ack(refCountedTuple);
    }

    void process(Object value, String sourceStreamId) {
        LOG.debug("Stream bolt {} processes {} from {}", id, value, sourceStreamId);
        if (StreamUtil.isPunctuation(value)) {
            punctuateInitialProcessors(sourceStreamId);
        } else {
            executeInitialProcessors(value, sourceStreamId);
        }
    }

    /** The end of every window: each initial processor ends its window (a windowed bolt's evaluation). */
    void punctuateWindow() {
        Set<ProcessorNode> initial = new LinkedHashSet<>();
        for (String stream : streamToInitialProcessors.keySet()) {
            initial.addAll(streamToInitialProcessors.get(stream));
        }
        for (ProcessorNode node : initial) {
            node.getProcessor().punctuate(null);
        }
    }

    private void punctuateInitialProcessors(String punctuationStreamId) {
        for (ProcessorNode node : streamToInitialProcessors.get(punctuationStreamId)) {
            if (shouldPunctuate(node, punctuationStreamId)) {
                node.getProcessor().punctuate(punctuationStreamId);
                clearPunctuationState(node, punctuationStreamId);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void executeInitialProcessors(Object value, String sourceStreamId) {
        for (ProcessorNode node : streamToInitialProcessors.get(sourceStreamId)) {
            ((Processor<Object>) node.getProcessor()).execute(value, sourceStreamId);
        }
    }

    void setStreamToInitialProcessors(Multimap<String, ProcessorNode> streamToInitialProcessors) {
        this.streamToInitialProcessors = streamToInitialProcessors;
    }

    void addStreamToInitialProcessors(Multimap<String, ProcessorNode> streamToInitialProcessors) {
        this.streamToInitialProcessors.putAll(streamToInitialProcessors);
    }

    Set<String> getInitialStreams() {
        return streamToInitialProcessors.keySet();
    }

    boolean isEventTimestamp() {
        return timestampField != null;
    }

    void setEventTimestamp(long timestamp) {
        for (EmittingProcessorContext context : emittingProcessorContexts) {
            context.setEventTimestamp(timestamp);
        }
    }

    String getTimestampField() {
        return timestampField;
    }

    void setTimestampField(String fieldName) {
        this.timestampField = fieldName;
    }

    private void ack(RefCountedTuple tuple) {
        if (tuple.shouldAck()) {
            outputCollector.ack(tuple.tuple());
            tuple.setAcked();
        }
    }

    private ProcessorContext createEmittingContext(ProcessorNode node, String stream) {
        EmittingProcessorContext<?> context = new EmittingProcessorContext<>(node, outputCollector, stream);
        if (timestampField != null) {
            context.setTimestampField(timestampField);
        }
        emittingProcessorContexts.add(context);
        return context;
    }

    private boolean shouldPunctuate(ProcessorNode node, String stream) {
        Integer seen = punctuationState.get(node, stream);
        int count = (seen == null ? 0 : seen) + 1;
        punctuationState.put(node, stream, count);
        return count >= streamToInputTaskCount.getOrDefault(stream, 1);
    }

    private void clearPunctuationState(ProcessorNode node, String stream) {
        punctuationState.remove(node, stream);
    }

    /** A tuple of a pair stream: its first two fields are the key and the value. */
    private boolean isPair(Tuple input) {
        Fields fields = input.getFields();
        if (fields != null) {
            return fields.size() >= 2 && "key".equals(fields.get(0)) && "value".equals(fields.get(1));
        }
        return input.size() == 2;
    }
}

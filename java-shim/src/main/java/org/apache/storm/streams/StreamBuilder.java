package org.apache.storm.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.shade.com.google.common.collect.ArrayListMultimap;
import org.apache.storm.shade.com.google.common.collect.Multimap;
import org.apache.storm.shade.org.jgrapht.graph.DefaultDirectedGraph;
import org.apache.storm.shade.org.jgrapht.traverse.TopologicalOrderIterator;
import org.apache.storm.streams.operations.mappers.PairValueMapper;
import org.apache.storm.streams.operations.mappers.TupleValueMapper;
import org.apache.storm.streams.processors.StatefulProcessor;
import org.apache.storm.streams.windowing.Window;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.topology.IBasicBolt;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.topology.IRichSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a topology from typed streams (Storm's Streams API): {@link #newStream} starts a
 * stream from a spout, the stream operations add nodes to a graph, and {@link #build()}
 * turns the graph into a {@link StormTopology} of the spouts, the user's sink bolts and the
 * bolts that run the processors.
 *
 * <p>How the processors are grouped into bolts: a processor runs in the bolt of its parent
 * processor(s) when they are all in one bolt of the same parallelism; it starts a new bolt
 * after a spout, a repartition (which sets the grouping toward the new bolt; shuffle
 * otherwise), a window (the new bolt is windowed), a join of streams from several bolts, or a
 * change of parallelism. A bolt with a stateful processor is a stateful bolt; a state query
 * runs in the bolt of the state it queries. Bolts are numbered in the graph's topological
 * order ({@code bolt1}, ...), as are spouts.
 */
public class StreamBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(StreamBuilder.class);

    private final DefaultDirectedGraph<Node, Edge> graph;
    /** For each state query node, the node that updates the state it reads. */
    private final Map<ProcessorNode, ProcessorNode> stateQueries = new LinkedHashMap<>();
    private String timestampFieldName;

    public StreamBuilder() {
        graph = new DefaultDirectedGraph<>(new StreamsEdgeFactory());
    }

    /** A stream of the spout's tuples (its default stream), one task. */
    public Stream<Tuple> newStream(IRichSpout spout) {
        return newStream(spout, 1);
    }

    /** A stream of the spout's tuples (its default stream) from {@code parallelism} tasks. */
    public Stream<Tuple> newStream(IRichSpout spout, int parallelism) {
        SpoutNode spoutNode = new SpoutNode(spout);
        String spoutId = UniqueIdGen.getInstance().getUniqueSpoutId();
        spoutNode.setComponentId(spoutId);
        spoutNode.setParallelism(parallelism);
        graph.addVertex(spoutNode);
        return new Stream<>(this, spoutNode);
    }

    /** A stream of values mapped from the spout's tuples. */
    public <T> Stream<T> newStream(IRichSpout spout, TupleValueMapper<T> valueMapper) {
        return newStream(spout).map(valueMapper);
    }

    public <T> Stream<T> newStream(IRichSpout spout, TupleValueMapper<T> valueMapper, int parallelism) {
        return newStream(spout, parallelism).map(valueMapper);
    }

    /** A stream of key-value pairs mapped from the spout's tuples. */
    public <K, V> PairStream<K, V> newStream(IRichSpout spout, PairValueMapper<K, V> pairValueMapper) {
        return newStream(spout).mapToPair(pairValueMapper);
    }

    public <K, V> PairStream<K, V> newStream(IRichSpout spout, PairValueMapper<K, V> pairValueMapper,
            int parallelism) {
        return newStream(spout, parallelism).mapToPair(pairValueMapper);
    }

    /** The topology of the streams built so far. */
    public StormTopology build() {
        TopologyBuilder topologyBuilder = new TopologyBuilder();
        mayBeAddTsField();
        Map<ProcessorNode, Group> groupOf = new HashMap<>();
        List<Group> groups = new ArrayList<>();
        List<Node> order = new ArrayList<>();
        TopologicalOrderIterator<Node, Edge> it = new TopologicalOrderIterator<>(graph);
        while (it.hasNext()) {
            order.add(it.next());
        }
        // ids in topological order: spouts, sinks and processor bolts
        for (Node node : order) {
            if (node instanceof SpoutNode) {
                addSpout(topologyBuilder, (SpoutNode) node);
            } else if (node instanceof ProcessorNode) {
                ProcessorNode pn = (ProcessorNode) node;
                pn.setWindowedParentStreams(windowedParentStreams(pn));
                Group group = groupFor(pn, groupOf);
                if (group == null) {
                    group = new Group(UniqueIdGen.getInstance().getUniqueBoltId(), pn.getParallelism());
                    groups.add(group);
                }
                group.nodes.add(pn);
                pn.setComponentId(group.id);
                groupOf.put(pn, group);
            } else if (node instanceof SinkNode) {
                node.setComponentId(UniqueIdGen.getInstance().getUniqueBoltId());
                groups.add(Group.sink((SinkNode) node));
            }
        }
        for (Group group : groups) {
            if (group.sink != null) {
                addSink(topologyBuilder, group.sink);
            } else {
                addBolt(topologyBuilder, group);
            }
        }
        return topologyBuilder.createTopology();
    }

    Node addNode(Node parent, Node child) {
        return addNode(parent, child, parent.getParallelism());
    }

    Node addNode(Node parent, Node child, int parallelism) {
        return addNode(parent, child, parent.getOutputStreams().iterator().next(), parallelism);
    }

    Node addNode(Node parent, Node child, String parentStreamId) {
        return addNode(parent, child, parentStreamId, parent.getParallelism());
    }

    Node addNode(Node parent, Node child, String parentStreamId, int parallelism) {
        graph.addVertex(child);
        graph.addEdge(parent, child);
        child.setParallelism(parallelism);
        child.addParentStream(parent, parentStreamId);
        if (parent.isWindowed() || parent instanceof WindowNode) {
            child.setWindowed(true);
        }
        // a partition node keeps its own grouping; other nodes know how their input is partitioned
        boolean partitionedAsParent = parent instanceof PartitionNode
                || (child.getGroupingInfo() == null && keepsPartitioning(parent, child));
        if (!(child instanceof PartitionNode) && partitionedAsParent) {
            child.setGroupingInfo(parent.getGroupingInfo());
        }
        return child;
    }

    /** Puts {@code child} between {@code parent} and each of its children, on the same streams. */
    Node insert(Node parent, Node child) {
        Node inserted = addNode(parent, child, parent.getParallelism());
        for (Edge edge : new ArrayList<>(graph.outgoingEdgesOf(parent))) {
            Node target = graph.getEdgeTarget(edge);
            if (target == inserted) {
                continue;
            }
            List<String> streams = new ArrayList<>(target.getParentStreams(parent));
            graph.removeEdge(edge);
            target.removeParentStreams(parent);
            graph.addEdge(inserted, target);
            for (String s : streams) {
                target.addParentStream(inserted, s);
            }
        }
        return inserted;
    }

    /** A state query runs in the bolt of the state it reads: placed after the node that updates it. */
    void addStateQuery(ProcessorNode queryNode, ProcessorNode updateStateNode) {
        stateQueries.put(queryNode, updateStateNode);
        if (!graph.containsEdge(updateStateNode, queryNode)) {
            graph.addEdge(updateStateNode, queryNode);
        }
    }

    private static boolean keepsPartitioning(Node parent, Node child) {
        if (parent instanceof WindowNode) {
            return true;
        }
        return parent instanceof ProcessorNode && ((ProcessorNode) parent).isPreservesKey()
                && child instanceof ProcessorNode && ((ProcessorNode) child).isPreservesKey();
    }

    /** With a window on event time, every stream bolt carries its timestamp field. */
    private void mayBeAddTsField() {
        for (Node node : graph.vertexSet()) {
            if (node instanceof WindowNode) {
                String field = ((WindowNode) node).getWindowParams().getTimestampField();
                if (field != null) {
                    if (timestampFieldName != null && !timestampFieldName.equals(field)) {
                        throw new IllegalArgumentException("Windows on different timestamp fields: "
                                + timestampFieldName + " and " + field);
                    }
                    timestampFieldName = field;
                }
            }
        }
    }

    /** The parent streams of {@code node} that come from windows and so end with punctuations. */
    private Set<String> windowedParentStreams(ProcessorNode node) {
        Set<String> streams = new LinkedHashSet<>();
        for (Node parent : node.getParents()) {
            if (parent.isWindowed() || parent instanceof WindowNode) {
                streams.addAll(node.getParentStreams(parent));
            }
        }
        return streams;
    }

    /** The existing group {@code node} runs in, or null when it starts a new bolt. */
    private Group groupFor(ProcessorNode node, Map<ProcessorNode, Group> groupOf) {
        ProcessorNode updateStateNode = stateQueries.get(node);
        if (updateStateNode != null) {
            return groupOf.get(updateStateNode);
        }
        Group group = null;
        for (Node parent : node.getParents()) {
            if (!(parent instanceof ProcessorNode)) {
                return null;
            }
            Group parentGroup = groupOf.get(parent);
            if (parentGroup == null || (group != null && group != parentGroup)) {
                return null;
            }
            group = parentGroup;
        }
        if (group == null || group.parallelism != node.getParallelism()) {
            return null;
        }
        return group;
    }

    private void addSpout(TopologyBuilder topologyBuilder, SpoutNode spout) {
        topologyBuilder.setSpout(spout.getComponentId(), spout.getSpout(), spout.getParallelism());
    }

    private void addSink(TopologyBuilder topologyBuilder, SinkNode sinkNode) {
        BoltDeclarer declarer;
        if (sinkNode.getBolt() instanceof IRichBolt) {
            declarer = topologyBuilder.setBolt(sinkNode.getComponentId(), (IRichBolt) sinkNode.getBolt(),
                    sinkNode.getParallelism());
        } else {
            declarer = topologyBuilder.setBolt(sinkNode.getComponentId(), (IBasicBolt) sinkNode.getBolt(),
                    sinkNode.getParallelism());
        }
        for (Node parent : sinkNode.getParents()) {
            for (String stream : sinkNode.getParentStreams(parent)) {
                Source source = source(parent);
                declareGrouping(declarer, source, stream);
            }
        }
    }

    private void addBolt(TopologyBuilder topologyBuilder, Group group) {
        Set<ProcessorNode> inGroup = new HashSet<>(group.nodes);
        Multimap<String, ProcessorNode> streamToInitialProcessors = ArrayListMultimap.create();
        Map<String, Source> inputs = new LinkedHashMap<>();
        Window<?, ?> window = null;
        boolean stateful = false;
        for (ProcessorNode node : group.nodes) {
            stateful |= node.getProcessor() instanceof StatefulProcessor;
            for (Node parent : node.getParents()) {
                if (parent instanceof ProcessorNode && inGroup.contains(parent)) {
                    continue;
                }
                Source source = source(parent);
                if (source.window != null) {
                    if (window != null && !window.equals(source.window)) {
                        throw new IllegalArgumentException("A bolt's inputs come from different windows: " + window
                                + " and " + source.window);
                    }
                    window = source.window;
                }
                for (String stream : node.getParentStreams(parent)) {
                    String key = source.node instanceof SpoutNode ? source.node.getComponentId() + ":" + stream : stream;
                    if (!streamToInitialProcessors.containsEntry(key, node)) {
                        streamToInitialProcessors.put(key, node);
                    }
                    inputs.putIfAbsent(source.node.getComponentId() + "\u0000" + stream, source.withStream(stream));
                }
            }
        }
        StreamBolt bolt;
        BoltDeclarer declarer;
        if (window != null && stateful) {
            throw new UnsupportedOperationException("A stateful operation over a window is not supported: bolt "
                    + group.id + " " + group.nodes);
        } else if (window != null) {
            WindowedProcessorBolt windowed = new WindowedProcessorBolt(group.id, graph, group.nodes, window);
            windowed.setStreamToInitialProcessors(streamToInitialProcessors);
            bolt = windowed;
            setTimestampField(bolt);
            declarer = topologyBuilder.setBolt(group.id, windowed, group.parallelism);
        } else if (stateful) {
            StatefulProcessorBolt<?, ?> statefulBolt = new StatefulProcessorBolt<>(group.id, graph, group.nodes);
            statefulBolt.setStreamToInitialProcessors(streamToInitialProcessors);
            bolt = statefulBolt;
            setTimestampField(bolt);
            declarer = topologyBuilder.setBolt(group.id, statefulBolt, group.parallelism);
        } else {
            ProcessorBolt processorBolt = new ProcessorBolt(group.id, graph, group.nodes);
            processorBolt.setStreamToInitialProcessors(streamToInitialProcessors);
            bolt = processorBolt;
            setTimestampField(bolt);
            declarer = topologyBuilder.setBolt(group.id, processorBolt, group.parallelism);
        }
        for (Source input : inputs.values()) {
            declareGrouping(declarer, input, input.stream);
            if (window == null && input.node instanceof ProcessorNode) {
                declarer.allGrouping(input.node.getComponentId(), StreamUtil.getPunctuationStream(input.stream));
            }
        }
        LOG.debug("Stream bolt {} (parallelism {}{}): {}", group.id, group.parallelism,
                window != null ? ", windowed" : stateful ? ", stateful" : "", group.nodes);
    }

    private void setTimestampField(StreamBolt bolt) {
        if (timestampFieldName != null) {
            bolt.setTimestampField(timestampFieldName);
        }
    }

    private void declareGrouping(BoltDeclarer declarer, Source source, String stream) {
        GroupingInfo groupingInfo = source.groupingInfo != null ? source.groupingInfo : GroupingInfo.shuffle();
        groupingInfo.declareGrouping(declarer, source.node.getComponentId(), stream, groupingInfo.getFields());
    }

    /**
     * The component a parent's tuples come from: the parent itself, or, through partitions and
     * windows, the node before them, with the grouping of the partition nearest the consumer.
     */
    private Source source(Node parent) {
        GroupingInfo groupingInfo = null;
        Window<?, ?> window = null;
        Node node = parent;
        while (node instanceof PartitionNode || node instanceof WindowNode) {
            if (node instanceof PartitionNode && groupingInfo == null) {
                groupingInfo = node.getGroupingInfo();
            }
            if (node instanceof WindowNode && window == null) {
                window = ((WindowNode) node).getWindowParams();
            }
            Set<Node> parents = node.getParents();
            if (parents.size() != 1) {
                throw new IllegalStateException("A partition or window node has one parent, not " + parents);
            }
            node = parents.iterator().next();
        }
        return new Source(node, groupingInfo, window, null);
    }

    /** The processor nodes of one bolt (or a sink). */
    private static final class Group {
        final String id;
        final int parallelism;
        final List<ProcessorNode> nodes = new ArrayList<>();
        SinkNode sink;

        Group(String id, int parallelism) {
            this.id = id;
            this.parallelism = parallelism;
        }

        static Group sink(SinkNode sink) {
            Group group = new Group(sink.getComponentId(), sink.getParallelism());
            group.sink = sink;
            return group;
        }
    }

    /** Where a bolt's input comes from. */
    private static final class Source {
        final Node node;
        final GroupingInfo groupingInfo;
        final Window<?, ?> window;
        final String stream;

        Source(Node node, GroupingInfo groupingInfo, Window<?, ?> window, String stream) {
            this.node = Objects.requireNonNull(node);
            this.groupingInfo = groupingInfo;
            this.window = window;
            this.stream = stream;
        }

        Source withStream(String stream) {
            return new Source(node, groupingInfo, window, stream);
        }
    }
}

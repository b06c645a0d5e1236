package org.apache.storm.streams;

import java.util.ArrayList;
import java.util.List;
import org.apache.storm.streams.operations.BiFunction;
import org.apache.storm.streams.operations.CombinerAggregator;
import org.apache.storm.streams.operations.Consumer;
import org.apache.storm.streams.operations.FlatMapFunction;
import org.apache.storm.streams.operations.Function;
import org.apache.storm.streams.operations.IdentityFunction;
import org.apache.storm.streams.operations.PairFlatMapFunction;
import org.apache.storm.streams.operations.PairFunction;
import org.apache.storm.streams.operations.Predicate;
import org.apache.storm.streams.operations.PrintConsumer;
import org.apache.storm.streams.operations.Reducer;
import org.apache.storm.streams.operations.aggregators.Count;
import org.apache.storm.streams.processors.AggregateProcessor;
import org.apache.storm.streams.processors.BranchProcessor;
import org.apache.storm.streams.processors.FilterProcessor;
import org.apache.storm.streams.processors.FlatMapProcessor;
import org.apache.storm.streams.processors.ForEachProcessor;
import org.apache.storm.streams.processors.MapProcessor;
import org.apache.storm.streams.processors.MergeAggregateProcessor;
import org.apache.storm.streams.processors.PeekProcessor;
import org.apache.storm.streams.processors.Processor;
import org.apache.storm.streams.processors.ReduceProcessor;
import org.apache.storm.streams.processors.StateQueryProcessor;
import org.apache.storm.streams.windowing.Window;
import org.apache.storm.topology.IBasicBolt;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.tuple.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A typed stream of values, built by a {@link StreamBuilder}: each operation adds a node to
 * the builder's graph and returns the stream it produces. Nothing runs until the builder's
 * {@code build()} turns the graph into a topology.
 *
 * @param <T> the type of the values
 */
public class Stream<T> {
    protected static final Fields KEY = new Fields("key");
    protected static final Fields VALUE = new Fields("value");
    protected static final Fields KEY_VALUE = new Fields("key", "value");
    private static final Logger LOG = LoggerFactory.getLogger(Stream.class);

    protected final StreamBuilder streamBuilder;
    protected final Node node;
    protected final String stream;

    Stream(StreamBuilder streamBuilder, Node node) {
        this(streamBuilder, node, node.getOutputStreams().iterator().next());
    }

    private Stream(StreamBuilder streamBuilder, Node node, String stream) {
        this.streamBuilder = streamBuilder;
        this.node = node;
        this.stream = stream;
    }

    /** The values {@code predicate} accepts. */
    public Stream<T> filter(Predicate<? super T> predicate) {
        return new Stream<>(streamBuilder, addProcessorNode(new FilterProcessor<>(predicate), ownFields(), true));
    }

    /** Each value mapped by {@code function}. */
    public <R> Stream<R> map(Function<? super T, ? extends R> function) {
        return new Stream<>(streamBuilder, addProcessorNode(new MapProcessor<>(function), VALUE));
    }

    /** Each value mapped to a key-value pair. */
    public <K, V> PairStream<K, V> mapToPair(PairFunction<? super T, ? extends K, ? extends V> function) {
        return new PairStream<>(streamBuilder, addProcessorNode(new MapProcessor<>(function), KEY_VALUE));
    }

    /** Each value mapped to zero or more values. */
    public <R> Stream<R> flatMap(FlatMapFunction<? super T, ? extends R> function) {
        return new Stream<>(streamBuilder, addProcessorNode(new FlatMapProcessor<>(function), VALUE));
    }

    /** Each value mapped to zero or more key-value pairs. */
    public <K, V> PairStream<K, V> flatMapToPair(PairFlatMapFunction<? super T, ? extends K, ? extends V> function) {
        return new PairStream<>(streamBuilder, addProcessorNode(new FlatMapProcessor<>(function), KEY_VALUE));
    }

    /** This stream in windows: the aggregations and joins after it work window by window. */
    public Stream<T> window(Window<?, ?> window) {
        WindowNode windowNode = new WindowNode(window, stream, node.getOutputFields());
        windowNode.setEmitsPair(node.emitsPair());
        return new Stream<>(streamBuilder, addNode(windowNode));
    }

    /** Calls {@code action} with each value (a terminal operation). */
    public void forEach(Consumer<? super T> action) {
        addProcessorNode(new ForEachProcessor<>(action), new Fields());
    }

    /** Calls {@code action} with each value and passes the values on unchanged. */
    public Stream<T> peek(Consumer<? super T> action) {
        return new Stream<>(streamBuilder, addProcessorNode(new PeekProcessor<>(action), ownFields(), true));
    }

    /** The values aggregated (over all partitions; per window when windowed, else each update). */
    public <A, R> Stream<R> aggregate(CombinerAggregator<? super T, A, ? extends R> aggFn) {
        return combine(aggFn);
    }

    /** The values folded from {@code initialValue} with {@code accumulator}, partial results merged with {@code combiner}. */
    public <R> Stream<R> aggregate(R initialValue, BiFunction<? super R, ? super T, ? extends R> accumulator,
            BiFunction<? super R, ? super R, ? extends R> combiner) {
        return combine(CombinerAggregator.of(initialValue, accumulator, combiner));
    }

    /** The number of values. */
    public Stream<Long> count() {
        return aggregate(new Count<>());
    }

    /** The values reduced with {@code reducer}. */
    public Stream<T> reduce(Reducer<T> reducer) {
        return combine(reducer);
    }

    /** This stream spread (shuffled) over {@code parallelism} tasks of the next operations. */
    public Stream<T> repartition(int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("Invalid parallelism " + parallelism + ": it must be at least 1");
        }
        return partitionBy(null, parallelism);
    }

    /**
     * One stream per predicate: each value goes to the stream of the first predicate that
     * accepts it, or to none.
     */
    @SuppressWarnings("unchecked")
    public Stream<T>[] branch(Predicate<? super T>... predicates) {
        List<Stream<T>> branches = new ArrayList<>();
        if (predicates.length > 0) {
            BranchProcessor<T> processor = new BranchProcessor<>();
            Node branchNode = addProcessorNode(processor, ownFields());
            for (Predicate<? super T> predicate : predicates) {
                ProcessorNode child = makeProcessorNode(new MapProcessor<>(new IdentityFunction<>()), ownFields());
                String branchStream = child.getOutputStreams().iterator().next() + "-branch";
                branchNode.addOutputStream(branchStream);
                processor.addPredicate(predicate, branchStream);
                streamBuilder.addNode(branchNode, child, branchStream);
                branches.add(new Stream<>(streamBuilder, child));
            }
        }
        return branches.toArray((Stream<T>[]) new Stream[0]);
    }

    /** Prints each value to standard output (a terminal operation). */
    public void print() {
        forEach(new PrintConsumer<>());
    }

    /** Sends the values to {@code bolt} (a terminal operation): its tuples have the stream's fields. */
    public void to(IRichBolt bolt) {
        to(bolt, 1);
    }

    public void to(IRichBolt bolt, int parallelism) {
        addSinkNode(new SinkNode(bolt), parallelism);
    }

    public void to(IBasicBolt bolt) {
        to(bolt, 1);
    }

    public void to(IBasicBolt bolt, int parallelism) {
        addSinkNode(new SinkNode(bolt), parallelism);
    }

    /** Each value looked up as a key in {@code streamState}: the keys that have a value, with it. */
    public <V> PairStream<T, V> stateQuery(StreamState<T, V> streamState) {
        // the state is local to each task of its bolt: every task answers for its keys
        Stream<T> toAll = new Stream<>(streamBuilder,
                addNode(partitionNode(GroupingInfo.all())));
        Node queryNode = toAll.addProcessorNode(new StateQueryProcessor<>(streamState), KEY_VALUE);
        streamBuilder.addStateQuery((ProcessorNode) queryNode, streamState.getUpdateStateNode());
        return new PairStream<>(streamBuilder, queryNode);
    }

    Node getNode() {
        return node;
    }

    Node addNode(Node parent, Node child, int parallelism) {
        return streamBuilder.addNode(parent, child, parallelism);
    }

    Node addNode(Node child) {
        return addNode(node, child);
    }

    private Node addNode(Node parent, Node child) {
        return streamBuilder.addNode(parent, child, stream);
    }

    private Node addNode(Node parent, Node child, String parentStreamId) {
        return streamBuilder.addNode(parent, child, parentStreamId);
    }

    private Node addNode(Node parent, Node child, String parentStreamId, int parallelism) {
        return streamBuilder.addNode(parent, child, parentStreamId, parallelism);
    }

    Node addProcessorNode(Processor<?> processor, Fields outputFields) {
        return addNode(makeProcessorNode(processor, outputFields));
    }

    Node addProcessorNode(Processor<?> processor, Fields outputFields, boolean preservesKey) {
        return addNode(makeProcessorNode(processor, outputFields, preservesKey));
    }

    String getStream() {
        return stream;
    }

    private ProcessorNode makeProcessorNode(Processor<?> processor, Fields outputFields) {
        return makeProcessorNode(processor, outputFields, false);
    }

    ProcessorNode makeProcessorNode(Processor<?> processor, Fields outputFields, boolean preservesKey) {
        ProcessorNode processorNode = new ProcessorNode(processor, UniqueIdGen.getInstance().getUniqueStreamId(),
                outputFields, preservesKey);
        processorNode.setEmitsPair(KEY_VALUE.toList().equals(outputFields.toList()));
        return processorNode;
    }

    /** The fields of a processor that passes this stream's values on unchanged. */
    private Fields ownFields() {
        return node.emitsPair() ? KEY_VALUE : VALUE;
    }

    private void addSinkNode(SinkNode sinkNode, int parallelism) {
        addNode(node, sinkNode, stream, parallelism);
        LOG.debug("Stream {} goes to the sink {}", stream, sinkNode.getBolt());
    }

    private PartitionNode partitionNode(GroupingInfo groupingInfo) {
        PartitionNode partitionNode = new PartitionNode(stream, node.getOutputFields(), groupingInfo);
        partitionNode.setEmitsPair(node.emitsPair());
        return partitionNode;
    }

    /** All values to one task (the same parallelism, as Storm's global grouping picks one task). */
    private Stream<T> global() {
        return new Stream<>(streamBuilder, addNode(partitionNode(GroupingInfo.global())));
    }

    /** This stream over {@code parallelism} tasks, by {@code fields} (null: shuffled). */
    protected Stream<T> partitionBy(Fields fields, int parallelism) {
        GroupingInfo groupingInfo = fields == null ? GroupingInfo.shuffle() : GroupingInfo.fields(fields);
        return new Stream<>(streamBuilder, addNode(node, partitionNode(groupingInfo), parallelism));
    }

    /** A global aggregation needs its partitions merged when more than one task produces them. */
    private boolean shouldPartition() {
        return node.getParallelism() > 1;
    }

    private <A> Stream<A> combinePartition(CombinerAggregator<? super T, A, ?> aggFn) {
        return new Stream<>(streamBuilder, addProcessorNode(new AggregateProcessor<>(aggFn, true), VALUE, true));
    }

    private <R> Stream<R> merge(CombinerAggregator<?, T, ? extends R> aggFn) {
        return new Stream<>(streamBuilder,
                global().addProcessorNode(new MergeAggregateProcessor<>(aggFn), VALUE));
    }

    private <A, R> Stream<R> aggregatePartition(CombinerAggregator<? super T, A, ? extends R> aggFn) {
        return new Stream<>(streamBuilder, addProcessorNode(new AggregateProcessor<>(aggFn), VALUE));
    }

    private Stream<T> reducePartition(Reducer<T> reducer) {
        return new Stream<>(streamBuilder, addProcessorNode(new ReduceProcessor<>(reducer), VALUE));
    }

    /**
     * A global aggregation: in a windowed bolt with several tasks, each task aggregates its
     * part of the window and one task merges the parts; otherwise one task aggregates all.
     */
    private <A, R> Stream<R> combine(CombinerAggregator<? super T, A, ? extends R> aggFn) {
        if (!shouldPartition()) {
            return aggregatePartition(aggFn);
        }
        if (node.isWindowed()) {
            Stream<A> partial = combinePartition(aggFn);
            return partial.merge(aggFn);
        }
        return global().aggregatePartition(aggFn);
    }

    private Stream<T> combine(Reducer<T> reducer) {
        if (!shouldPartition()) {
            return reducePartition(reducer);
        }
        if (node.isWindowed()) {
            return reducePartition(reducer).global().reducePartition(reducer);
        }
        return global().reducePartition(reducer);
    }
}

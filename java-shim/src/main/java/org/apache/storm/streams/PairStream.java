package org.apache.storm.streams;

import java.util.ArrayList;
import org.apache.storm.streams.operations.BiFunction;
import org.apache.storm.streams.operations.CombinerAggregator;
import org.apache.storm.streams.operations.Consumer;
import org.apache.storm.streams.operations.FlatMapFunction;
import org.apache.storm.streams.operations.Function;
import org.apache.storm.streams.operations.PairValueJoiner;
import org.apache.storm.streams.operations.Predicate;
import org.apache.storm.streams.operations.Reducer;
import org.apache.storm.streams.operations.StateUpdater;
import org.apache.storm.streams.operations.ValueJoiner;
import org.apache.storm.streams.operations.aggregators.Count;
import org.apache.storm.streams.processors.AggregateByKeyProcessor;
import org.apache.storm.streams.processors.CoGroupByKeyProcessor;
import org.apache.storm.streams.processors.FlatMapValuesProcessor;
import org.apache.storm.streams.processors.JoinProcessor;
import org.apache.storm.streams.processors.MapValuesProcessor;
import org.apache.storm.streams.processors.MergeAggregateByKeyProcessor;
import org.apache.storm.streams.processors.ReduceByKeyProcessor;
import org.apache.storm.streams.processors.UpdateStateByKeyProcessor;
import org.apache.storm.streams.windowing.Window;
import org.apache.storm.tuple.Fields;

/**
 * A stream of key-value {@link Pair}s, with the operations by key: its values are
 * partitioned by key (a fields grouping on {@code key}) before an operation by key when
 * more than one task runs it and the stream is not already partitioned so.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
public class PairStream<K, V> extends Stream<Pair<K, V>> {

    PairStream(StreamBuilder topology, Node node) {
        super(topology, node);
    }

    /** Each value mapped by {@code function}, keys unchanged. */
    public <R> PairStream<K, R> mapValues(Function<? super V, ? extends R> function) {
        return new PairStream<>(streamBuilder, addProcessorNode(new MapValuesProcessor<>(function), KEY_VALUE, true));
    }

    /** Each value mapped to zero or more values, each with the key. */
    public <R> PairStream<K, R> flatMapValues(FlatMapFunction<? super V, ? extends R> function) {
        return new PairStream<>(streamBuilder,
                addProcessorNode(new FlatMapValuesProcessor<>(function), KEY_VALUE, true));
    }

    /** Each key's values folded from {@code initialValue}; partial results merged with {@code combiner}. */
    public <R> PairStream<K, R> aggregateByKey(R initialValue, BiFunction<? super R, ? super V, ? extends R> accumulator,
            BiFunction<? super R, ? super R, ? extends R> combiner) {
        return combineByKey(CombinerAggregator.of(initialValue, accumulator, combiner));
    }

    /** Each key's values aggregated. */
    public <A, R> PairStream<K, R> aggregateByKey(CombinerAggregator<? super V, A, ? extends R> aggFn) {
        return combineByKey(aggFn);
    }

    /** The number of values of each key. */
    public PairStream<K, Long> countByKey() {
        return aggregateByKey(new Count<>());
    }

    /** Each key's values reduced with {@code reducer}. */
    public PairStream<K, V> reduceByKey(Reducer<V> reducer) {
        return combineByKey(reducer);
    }

    /** Each key with its values. */
    public PairStream<K, Iterable<V>> groupByKey() {
        return partitionByKey().aggregatePartition(new MergeValues<>());
    }

    /** Each key with its values of each window. */
    public PairStream<K, Iterable<V>> groupByKeyAndWindow(Window<?, ?> window) {
        return window(window).groupByKey();
    }

    /** Each key's values of each window reduced with {@code reducer}. */
    public PairStream<K, V> reduceByKeyAndWindow(Reducer<V> reducer, Window<?, ?> window) {
        return window(window).reduceByKey(reducer);
    }

    @Override
    public PairStream<K, V> peek(Consumer<? super Pair<K, V>> action) {
        return toPairStream(super.peek(action));
    }

    @Override
    public PairStream<K, V> filter(Predicate<? super Pair<K, V>> predicate) {
        return toPairStream(super.filter(predicate));
    }

    /** The inner join by key with {@code otherStream} (per window when windowed): the pairs of values. */
    public <V1> PairStream<K, Pair<V, V1>> join(PairStream<K, V1> otherStream) {
        return join(otherStream, new PairValueJoiner<>());
    }

    public <R, V1> PairStream<K, R> join(PairStream<K, V1> otherStream,
            ValueJoiner<? super V, ? super V1, ? extends R> valueJoiner) {
        return partitionByKey().joinPartition(otherStream.partitionByKey(), valueJoiner,
                JoinProcessor.JoinType.INNER, JoinProcessor.JoinType.INNER);
    }

    /** The left outer join by key: every value of this stream, joined with null when unmatched. */
    public <V1> PairStream<K, Pair<V, V1>> leftOuterJoin(PairStream<K, V1> otherStream) {
        return leftOuterJoin(otherStream, new PairValueJoiner<>());
    }

    public <R, V1> PairStream<K, R> leftOuterJoin(PairStream<K, V1> otherStream,
            ValueJoiner<? super V, ? super V1, ? extends R> valueJoiner) {
        return partitionByKey().joinPartition(otherStream.partitionByKey(), valueJoiner,
                JoinProcessor.JoinType.OUTER, JoinProcessor.JoinType.INNER);
    }

    /** The right outer join by key: every value of the other stream, joined with null when unmatched. */
    public <V1> PairStream<K, Pair<V, V1>> rightOuterJoin(PairStream<K, V1> otherStream) {
        return rightOuterJoin(otherStream, new PairValueJoiner<>());
    }

    public <R, V1> PairStream<K, R> rightOuterJoin(PairStream<K, V1> otherStream,
            ValueJoiner<? super V, ? super V1, ? extends R> valueJoiner) {
        return partitionByKey().joinPartition(otherStream.partitionByKey(), valueJoiner,
                JoinProcessor.JoinType.INNER, JoinProcessor.JoinType.OUTER);
    }

    /** The full outer join by key. */
    public <V1> PairStream<K, Pair<V, V1>> fullOuterJoin(PairStream<K, V1> otherStream) {
        return fullOuterJoin(otherStream, new PairValueJoiner<>());
    }

    public <R, V1> PairStream<K, R> fullOuterJoin(PairStream<K, V1> otherStream,
            ValueJoiner<? super V, ? super V1, ? extends R> valueJoiner) {
        return partitionByKey().joinPartition(otherStream.partitionByKey(), valueJoiner,
                JoinProcessor.JoinType.OUTER, JoinProcessor.JoinType.OUTER);
    }

    @Override
    public PairStream<K, V> window(Window<?, ?> window) {
        return toPairStream(super.window(window));
    }

    @Override
    public PairStream<K, V> repartition(int parallelism) {
        return toPairStream(super.repartition(parallelism));
    }

    @Override
    @SuppressWarnings("unchecked")
    public PairStream<K, V>[] branch(Predicate<? super Pair<K, V>>... predicates) {
        Stream<Pair<K, V>>[] streams = super.branch(predicates);
        PairStream<K, V>[] pairStreams = (PairStream<K, V>[]) new PairStream[streams.length];
        for (int i = 0; i < streams.length; i++) {
            pairStreams[i] = toPairStream(streams[i]);
        }
        return pairStreams;
    }

    /** Each key's value kept in the bolt's key-value state (checkpointed), updated with each new value. */
    public <R> StreamState<K, R> updateStateByKey(R initialValue,
            BiFunction<? super R, ? super V, ? extends R> stateUpdateFn) {
        return updateStateByKey(StateUpdater.of(initialValue, stateUpdateFn));
    }

    public <R> StreamState<K, R> updateStateByKey(StateUpdater<? super V, ? extends R> stateUpdater) {
        return partitionByKey().updateStateByKeyPartition(stateUpdater);
    }

    /** Each key with the values of this stream and of {@code otherStream}. */
    public <V1> PairStream<K, Pair<Iterable<V>, Iterable<V1>>> coGroupByKey(PairStream<K, V1> otherStream) {
        return partitionByKey().coGroupByKeyPartition(otherStream.partitionByKey());
    }

    private <R> StreamState<K, R> updateStateByKeyPartition(StateUpdater<? super V, ? extends R> stateUpdater) {
        return new StreamState<>(new PairStream<>(streamBuilder,
                addProcessorNode(new UpdateStateByKeyProcessor<>(stateUpdater), KEY_VALUE, true)));
    }

    private <R, V1> PairStream<K, R> joinPartition(PairStream<K, V1> otherStream,
            ValueJoiner<? super V, ? super V1, ? extends R> valueJoiner, JoinProcessor.JoinType leftType,
            JoinProcessor.JoinType rightType) {
        String leftStream = stream;
        String rightStream = otherStream.stream;
        Node joinNode = addProcessorNode(new JoinProcessor<>(leftStream, rightStream, valueJoiner, leftType, rightType),
                KEY_VALUE, true);
        addNode(otherStream.getNode(), joinNode, joinNode.getParallelism(), rightStream);
        return new PairStream<>(streamBuilder, joinNode);
    }

    private <R, V1> PairStream<K, R> coGroupByKeyPartition(PairStream<K, V1> otherStream) {
        String firstStream = stream;
        String secondStream = otherStream.stream;
        Node coGroupNode = addProcessorNode(new CoGroupByKeyProcessor<>(firstStream, secondStream), KEY_VALUE, true);
        addNode(otherStream.getNode(), coGroupNode, coGroupNode.getParallelism(), secondStream);
        return new PairStream<>(streamBuilder, coGroupNode);
    }

    private void addNode(Node parent, Node child, int parallelism, String parentStream) {
        streamBuilder.addNode(parent, child, parentStream, parallelism);
    }

    /** Partitioned by key, unless one task runs the next operation or the stream already is. */
    private PairStream<K, V> partitionByKey() {
        return shouldPartitionByKey() ? partitionBy(KEY) : this;
    }

    private boolean shouldPartitionByKey() {
        if (node.getParallelism() == 1) {
            return false;
        }
        if (node instanceof ProcessorNode) {
            ProcessorNode pn = (ProcessorNode) node;
            GroupingInfo groupingInfo = pn.getGroupingInfo();
            if (pn.isPreservesKey() && groupingInfo != null && groupingInfo.getFields() != null
                    && groupingInfo.getFields().toList().equals(KEY.toList())) {
                return false;
            }
        }
        return true;
    }

    private PairStream<K, V> partitionBy(Fields fields) {
        return toPairStream(partitionBy(fields, node.getParallelism()));
    }

    private PairStream<K, V> toPairStream(Stream<Pair<K, V>> stream) {
        return new PairStream<>(stream.streamBuilder, stream.node);
    }

    private <A, R> PairStream<K, R> aggregatePartition(CombinerAggregator<? super V, A, ? extends R> aggFn) {
        return new PairStream<>(streamBuilder,
                addProcessorNode(new AggregateByKeyProcessor<>(aggFn), KEY_VALUE, true));
    }

    private <A> PairStream<K, A> combinePartition(CombinerAggregator<? super V, A, ?> aggFn) {
        return new PairStream<>(streamBuilder,
                addProcessorNode(new AggregateByKeyProcessor<>(aggFn, true), KEY_VALUE, true));
    }

    private <R> PairStream<K, R> merge(CombinerAggregator<?, V, ? extends R> aggFn) {
        return new PairStream<>(streamBuilder,
                addProcessorNode(new MergeAggregateByKeyProcessor<>(aggFn), KEY_VALUE, true));
    }

    private PairStream<K, V> reducePartition(Reducer<V> reducer) {
        return new PairStream<>(streamBuilder, addProcessorNode(new ReduceByKeyProcessor<>(reducer), KEY_VALUE, true));
    }

    /**
     * An aggregation by key: in a windowed bolt with several tasks, each task aggregates its
     * part of the window by key, then the parts are partitioned by key and merged; otherwise
     * the values are partitioned by key (when needed) and aggregated.
     */
    private <A, R> PairStream<K, R> combineByKey(CombinerAggregator<? super V, A, ? extends R> aggFn) {
        if (shouldPartitionByKey() && node instanceof ProcessorNode && node.isWindowed()) {
            return combinePartition(aggFn).partitionByKey().merge(aggFn);
        }
        return partitionByKey().aggregatePartition(aggFn);
    }

    private PairStream<K, V> combineByKey(Reducer<V> reducer) {
        if (shouldPartitionByKey() && node instanceof ProcessorNode && node.isWindowed()) {
            return reducePartition(reducer).partitionByKey().reducePartition(reducer);
        }
        return partitionByKey().reducePartition(reducer);
    }

    /** Collects a key's values. */
    private static final class MergeValues<V> implements CombinerAggregator<V, ArrayList<V>, ArrayList<V>> {
        private static final long serialVersionUID = 1L;

        private MergeValues() {
        }

        @Override
        public ArrayList<V> init() {
            return new ArrayList<>();
        }

        @Override
        public ArrayList<V> apply(ArrayList<V> aggregate, V value) {
            aggregate.add(value);
            return aggregate;
        }

        @Override
        public ArrayList<V> merge(ArrayList<V> accum1, ArrayList<V> accum2) {
            ArrayList<V> merged = new ArrayList<>(accum1);
            merged.addAll(accum2);
            return merged;
        }

        @Override
        public ArrayList<V> result(ArrayList<V> accum) {
            return accum;
        }
    }
}

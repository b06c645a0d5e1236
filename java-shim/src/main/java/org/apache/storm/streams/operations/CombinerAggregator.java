package org.apache.storm.streams.operations;

/**
 * Aggregates values into an accumulator that partial aggregates can be merged into (so
 * the aggregation can run in parts, then combine), then turns it into the result.
 *
 * @param <T> the type of the values
 * @param <A> the type of the accumulator
 * @param <R> the type of the result
 */
public interface CombinerAggregator<T, A, R> extends Operation {
    /** An aggregator whose accumulator is its result. */
    static <T, R> CombinerAggregator<T, R, R> of(R initialValue, BiFunction<? super R, ? super T, ? extends R> accumulator,
            BiFunction<? super R, ? super R, ? extends R> combiner) {
        return new CombinerAggregator<T, R, R>() {
            private static final long serialVersionUID = 1L;

            @Override
            public R init() {
                return initialValue;
            }

            @Override
            public R apply(R aggregate, T value) {
                return accumulator.apply(aggregate, value);
            }

            @Override
            public R merge(R accum1, R accum2) {
                return combiner.apply(accum1, accum2);
            }

            @Override
            public R result(R accum) {
                return accum;
            }
        };
    }

    /** A new, empty accumulator. */
    A init();

    /** Adds a value to the accumulator, returning the new one. */
    A apply(A aggregate, T value);

    /** Merges two accumulators. */
    A merge(A accum1, A accum2);

    /** The result of an accumulator. */
    R result(A accum);
}

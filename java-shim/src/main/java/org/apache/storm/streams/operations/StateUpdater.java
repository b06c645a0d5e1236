package org.apache.storm.streams.operations;

/**
 * Updates a key's state with each of its values ({@code PairStream.updateStateByKey}).
 *
 * @param <T> the type of the values
 * @param <S> the type of the state
 */
public interface StateUpdater<T, S> extends Operation {
    /** An updater starting from {@code initialValue}. */
    static <T, S> StateUpdater<T, S> of(S initialValue, BiFunction<? super S, ? super T, ? extends S> stateUpdateFn) {
        return new StateUpdater<T, S>() {
            private static final long serialVersionUID = 1L;

            @Override
            public S init() {
                return initialValue;
            }

            @Override
            public S apply(S state, T value) {
                return stateUpdateFn.apply(state, value);
            }
        };
    }

    /** The state of a key not seen before. */
    S init();

    /** The new state after {@code value}. */
    S apply(S state, T value);
}

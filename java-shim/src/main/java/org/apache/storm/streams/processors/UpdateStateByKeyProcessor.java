package org.apache.storm.streams.processors;

import org.apache.storm.state.KeyValueState;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.operations.StateUpdater;

/** Updates each key's entry of the bolt's key-value state with its values, forwarding the new state. */
public class UpdateStateByKeyProcessor<K, V, R> extends BaseProcessor<Pair<K, V>> implements StatefulProcessor<K, R> {
    private static final long serialVersionUID = 1L;
    private final StateUpdater<V, R> stateUpdater;
    private transient KeyValueState<K, R> keyValueState;

    public UpdateStateByKeyProcessor(StateUpdater<V, R> stateUpdater) {
        this.stateUpdater = stateUpdater;
    }

    @Override
    public void initState(KeyValueState<K, R> keyValueState) {
        this.keyValueState = keyValueState;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected void execute(Pair<K, V> input) {
        K key = input.getFirst();
        R state = keyValueState.get(key);
        R updated = stateUpdater.apply(state == null ? stateUpdater.init() : state, input.getSecond());
        keyValueState.put(key, updated);
        context.forward(Pair.of(key, updated));
    }
}

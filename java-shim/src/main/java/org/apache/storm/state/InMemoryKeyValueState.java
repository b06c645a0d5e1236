package org.apache.storm.state;

import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value state in memory: the working map, the copy staged by
 * {@link #prepareCommit} and the last committed copy, which {@link #rollback} restores.
 * Null keys and values are not allowed (as in Storm, whose map is concurrent).
 */
public class InMemoryKeyValueState<K, V> implements KeyValueState<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(InMemoryKeyValueState.class);
    private static final long DEFAULT_TXID = -1;

    private static final class TxIdState<K, V> {
        final long txid;
        final Map<K, V> state;

        TxIdState(long txid, Map<K, V> state) {
            this.txid = txid;
            this.state = state;
        }

        @Override
        public String toString() {
            return "TxIdState{txid=" + txid + ", state=" + state + '}';
        }
    }

    private TxIdState<K, V> commitedState;
    private TxIdState<K, V> preparedState;
    private Map<K, V> state = new ConcurrentHashMap<>();

    public InMemoryKeyValueState() {
    }

    @Override
    public void put(K key, V value) {
        state.put(key, value);
    }

    @Override
    public V get(K key) {
        return state.get(key);
    }

    @Override
    public V get(K key, V defaultValue) {
        V val = get(key);
        return val != null ? val : defaultValue;
    }

    @Override
    public V delete(K key) {
        return state.remove(key);
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return Collections.unmodifiableMap(state).entrySet().iterator();
    }

    @Override
    public void commit() {
        commitedState = new TxIdState<>(DEFAULT_TXID, new ConcurrentHashMap<>(state));
    }

    @Override
    public void commit(long txid) {
        LOG.debug("commit, txid {}", txid);
        if (preparedState != null && txid == preparedState.txid) {
            commitedState = preparedState;
            preparedState = null;
        } else {
            throw new RuntimeException("Invalid prepared state for commit, preparedState " + preparedState
                    + " txid " + txid);
        }
    }

    @Override
    public void prepareCommit(long txid) {
        LOG.debug("prepare commit, txid {}", txid);
        if (preparedState != null && txid > preparedState.txid) {
            throw new RuntimeException("Cannot prepare a new txn while there is a pending txn");
        }
        preparedState = new TxIdState<>(txid, new ConcurrentHashMap<>(state));
    }

    @Override
    public void rollback() {
        preparedState = null;
        if (commitedState != null) {
            state = new ConcurrentHashMap<>(commitedState.state);
        } else {
            state = new ConcurrentHashMap<>();
        }
    }

    @Override
    public String toString() {
        return "InMemoryKeyValueState{commitedState=" + commitedState + ", preparedState=" + preparedState
                + ", state=" + state + '}';
    }
}

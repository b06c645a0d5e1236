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
 *
 * <p>Egret: one made by {@link InMemoryKeyValueStateProvider} in an instance JVM is also
 * durable. Its staged copy is stored at {@link #prepareCommit}, its committed copy at
 * {@link #commit(long)} (and {@link #commit()}), in the topology's checkpoint store, each
 * before the call returns; at first use after a restart of its JVM it starts from the copy
 * of the newest complete checkpoint (and a newer staged copy, for the COMMIT that may
 * follow). Within a run it behaves as Storm's.
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
    /** Egret: where the prepared and committed copies are also kept; null: memory only. */
    private final DurableBacking durable;
    private volatile boolean restored;

    public InMemoryKeyValueState() {
        this(null);
    }

    InMemoryKeyValueState(DurableBacking durable) {
        this.durable = durable;
        this.restored = durable == null;
    }

    /** At first use of a durable state: starts from what the checkpoint store has. */
    @SuppressWarnings("unchecked")
    private void restore() {
        if (restored) {
            return;
        }
        synchronized (this) {
            if (restored) {
                return;
            }
            DurableBacking.Copy[] copies = durable.restore();
            if (copies[0] != null) {
                commitedState = new TxIdState<>(copies[0].txid, (Map<K, V>) copies[0].state);
                state = new ConcurrentHashMap<>(commitedState.state);
            }
            if (copies[1] != null) {
                preparedState = new TxIdState<>(copies[1].txid, (Map<K, V>) copies[1].state);
            }
            LOG.info("State {} restored from the checkpoint store: committed {}, prepared {}", durable.namespace(),
                    copies[0] == null ? "none" : "txid " + copies[0].txid + " (" + copies[0].state.size() + " keys)",
                    copies[1] == null ? "none" : "txid " + copies[1].txid);
            restored = true;
        }
    }

    @Override
    public void put(K key, V value) {
        restore();
        state.put(key, value);
    }

    @Override
    public V get(K key) {
        restore();
        return state.get(key);
    }

    @Override
    public V get(K key, V defaultValue) {
        V val = get(key);
        return val != null ? val : defaultValue;
    }

    @Override
    public V delete(K key) {
        restore();
        return state.remove(key);
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        restore();
        return Collections.unmodifiableMap(state).entrySet().iterator();
    }

    @Override
    public void commit() {
        restore();
        TxIdState<K, V> committing = new TxIdState<>(DEFAULT_TXID, new ConcurrentHashMap<>(state));
        if (durable != null) {
            durable.committedWithoutTxid(committing.state);
        }
        commitedState = committing;
    }

    @Override
    public void commit(long txid) {
        LOG.debug("commit, txid {}", txid);
        restore();
        if (preparedState != null && txid == preparedState.txid) {
            if (durable != null) {
                durable.committed(txid, preparedState.state);
            }
            commitedState = preparedState;
            preparedState = null;
        } else if (durable != null && preparedState == null && commitedState != null && txid == commitedState.txid) {
            // Egret: the COMMIT of a checkpoint this state was restored from (the checkpoint
            // spout recovering a commit that had completed): already committed and stored.
            LOG.debug("commit, txid {} already committed", txid);
        } else {
            throw new RuntimeException("Invalid prepared state for commit, preparedState " + preparedState
                    + " txid " + txid);
        }
    }

    @Override
    public void prepareCommit(long txid) {
        LOG.debug("prepare commit, txid {}", txid);
        restore();
        if (preparedState != null && txid > preparedState.txid) {
            throw new RuntimeException("Cannot prepare a new txn while there is a pending txn");
        }
        TxIdState<K, V> preparing = new TxIdState<>(txid, new ConcurrentHashMap<>(state));
        if (durable != null) {
            durable.prepared(txid, preparing.state);
        }
        preparedState = preparing;
    }

    @Override
    public void rollback() {
        restore();
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

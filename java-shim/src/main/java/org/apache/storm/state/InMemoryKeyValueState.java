package org.apache.storm.state;

import dev.egret.instance.StateChannel;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
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
 *
 * <p>With {@code egret.checkpoint.full.every} N above 1, a staged copy is stored whole at one
 * checkpoint in N and as a delta at the others: the keys put or deleted since the previous
 * staged copy, on the committed checkpoint that copy became. The first checkpoint after a
 * restore or a rollback is stored whole.
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
    /** egret.checkpoint.full.every: 1, every staged copy is stored whole. */
    private final int fullEvery;
    /** The keys put or deleted since the last staged copy (kept only when deltas are stored). */
    private Set<K> changed = ConcurrentHashMap.newKeySet();
    /**
     * The checkpoint whose committed copy {@link #changed} is relative to (the last staged copy,
     * committed); null: the next staged copy is stored whole.
     */
    private Long deltaBase;
    /** Deltas stored since the last whole copy. */
    private int deltasSinceWhole;
    /** How the pending staged copy was stored (null: staged in an earlier run, or not durable). */
    private DurableBacking.Staged staged;
    /**
     * The working map is still the committed copy restored with a newer staged one: nothing
     * was put, deleted, staged or rolled back since. A COMMIT of that staged copy then makes it
     * the working map too, so that a bolt initialized after it (the checkpoint spout's recovery
     * sends COMMIT before INITSTATE) reads the checkpoint it committed.
     */
    private boolean workingIsRestoredCommit;

    public InMemoryKeyValueState() {
        this(null);
    }

    InMemoryKeyValueState(DurableBacking durable) {
        this(durable, durable == null ? 1 : StateChannel.fullEvery(durable.namespace()));
    }

    InMemoryKeyValueState(DurableBacking durable, int fullEvery) {
        this.durable = durable;
        this.restored = durable == null;
        this.fullEvery = durable == null ? 1 : Math.max(1, fullEvery);
    }

    private void changed(K key) {
        workingIsRestoredCommit = false;
        if (fullEvery > 1) {
            changed.add(key);
        }
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
                workingIsRestoredCommit = true;
            }
            LOG.info("State {} restored from the checkpoint store: committed {}, prepared {}", durable.namespace(),
                    copies[0] == null ? "none" : copies[0].describe(),
                    copies[1] == null ? "none" : copies[1].describe());
            restored = true;
        }
    }

    @Override
    public void put(K key, V value) {
        restore();
        state.put(key, value);
        changed(key);
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
        V removed = state.remove(key);
        changed(key);
        return removed;
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
        deltaBase = null;
    }

    @Override
    public void commit(long txid) {
        LOG.debug("commit, txid {}", txid);
        restore();
        if (preparedState != null && txid == preparedState.txid) {
            if (durable != null) {
                if (staged != null) {
                    durable.committed(txid, staged);
                    deltasSinceWhole = staged.base == null ? 0 : deltasSinceWhole + 1;
                    deltaBase = txid;
                } else {
                    durable.committed(txid, preparedState.state);
                    deltaBase = null;
                }
            }
            staged = null;
            if (workingIsRestoredCommit) {
                state = new ConcurrentHashMap<>(preparedState.state);
                workingIsRestoredCommit = false;
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
        workingIsRestoredCommit = false;
        if (durable != null) {
            Set<K> since = changed;
            changed = ConcurrentHashMap.newKeySet();
            // A copy staged again (its COMMIT did not come) is stored whole: the keys changed
            // before the first staging were forgotten then.
            if (preparedState == null && deltaBase != null && deltaBase < txid
                    && deltasSinceWhole + 1 < fullEvery) {
                staged = durable.preparedDelta(txid, deltaBase, preparing.state, since);
            } else {
                staged = durable.prepared(txid, preparing.state);
            }
        }
        preparedState = preparing;
    }

    @Override
    public void rollback() {
        restore();
        preparedState = null;
        staged = null;
        deltaBase = null;
        workingIsRestoredCommit = false;
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

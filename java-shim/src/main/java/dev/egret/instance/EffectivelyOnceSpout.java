package dev.egret.instance;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.state.KeyValueState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data spout task's part in effectively-once mode ({@code topology.reliability.mode:
 * EFFECTIVELY_ONCE}; docs/reliability.md).
 *
 * <p>The submitter routes the checkpoint spout's {@code $checkpoint} stream through every
 * data spout: the instance forwards each action on the spout's own {@code $checkpoint}
 * (anchored, so the checkpoint spout's tree covers every task) after the tuples it emitted
 * before, so a PREPARE cuts the data where it cuts the spout's emits. With
 * {@code egret.checkpoint.alignment.bytes} above 0 (the default) the spout goes on emitting
 * after a PREPARE, and the bolts with several inputs hold the inputs that are ahead until the
 * marker has come on all of them ({@link MarkerAlignment}). With 0, and for the first
 * checkpoint after every ROLLBACK (so that one completes even when a bolt's alignment passed
 * its bound), the spout does not call {@code nextTuple} from the PREPARE until the COMMIT:
 * nothing is emitted behind a marker while the bolts take their snapshots, so no task has an
 * input that is ahead. After a ROLLBACK the spout also waits for the INITSTATE that follows it.
 *
 * <p>What the spout task keeps, in its own state of the checkpoint (namespace
 * {@code component-task}, written through the stream manager like a bolt's): for each of the
 * last {@link #KEPT_WINDOWS} checkpoints, the message ids emitted in the window before its
 * PREPARE, i.e. the messages whose effects that checkpoint holds.
 *
 * <ul>
 *   <li>A tree that completes is acked to the spout only once a checkpoint that covers it is
 *       known complete (the checkpoint spout sends PREPARE t+1 or INITSTATE t only after t's
 *       marker is written), so an acked message is never rolled back.</li>
 *   <li>A tree that fails (a bolt's fail, a timeout, a lost stream manager) makes the next
 *       PREPARE fail, so the checkpoint spout rolls every task back to the last complete
 *       checkpoint; the failed messages are then failed to the spout (replayed) unless a
 *       complete checkpoint already holds them, in which case they are acked.</li>
 *   <li>An emit whose message id a complete checkpoint holds (a spout restarted from a
 *       position older than the checkpoint's) is not sent: the message is acked at once.</li>
 * </ul>
 *
 * <p>Runs on the executor thread only.
 */
final class EffectivelyOnceSpout {
    private static final Logger LOG = LoggerFactory.getLogger(EffectivelyOnceSpout.class);
    /** Checkpoint windows of message ids kept for de-duplication. */
    static final int KEPT_WINDOWS = 16;
    /** Emits in one window above which the spout waits for the next PREPARE (memory bound). */
    static final int MAX_WINDOW = 1 << 20;

    private final String name;
    private final KeyValueState<Long, ArrayList<Object>> state;
    private final TreeMap<Long, List<Object>> windows = new TreeMap<>();
    private final Map<Object, Long> windowOf = new HashMap<>();
    private ArrayList<Object> current = new ArrayList<>();
    private long lastComplete = Long.MIN_VALUE;
    private boolean initialized;
    private boolean paused;
    /** egret.checkpoint.alignment.bytes is 0: every PREPARE pauses the spout until its COMMIT. */
    private final boolean pauseAtPrepare;
    /** The next PREPARE pauses the spout (the first checkpoint after a ROLLBACK). */
    private boolean pauseNext = true;
    private boolean rollbackNeeded;
    private long rollbackAt;
    private final List<SpoutCollector.Pending> held = new ArrayList<>();
    private final List<SpoutCollector.Pending> deferred = new ArrayList<>();
    final ArrayDeque<SpoutCollector.Pending> toAck = new ArrayDeque<>();
    final ArrayDeque<SpoutCollector.Pending> toFail = new ArrayDeque<>();

    EffectivelyOnceSpout(String name, KeyValueState<Long, ArrayList<Object>> state, boolean pauseAtPrepare) {
        this.name = name;
        this.state = state;
        this.pauseAtPrepare = pauseAtPrepare;
        this.rollbackAt = System.nanoTime();
        reload();
        LOG.info("Effectively once: spout {} restored {} checkpoint window(s) of message ids; waits for INITSTATE",
                name, windows.size());
    }

    /** Whether nextTuple may be called now. */
    boolean mayEmit() {
        return initialized && !paused && current.size() < MAX_WINDOW;
    }

    /** Whether a complete checkpoint already holds the message's effects. */
    boolean covered(Object messageId) {
        Long w = windowOf.get(messageId);
        return w != null && w <= lastComplete;
    }

    /** A tracked emit went out. */
    void emitted(Object messageId) {
        current.add(messageId);
    }

    /** The stream manager reported the tree complete. */
    void completed(SpoutCollector.Pending p) {
        if (covered(p.messageId)) {
            toAck.add(p);
        } else {
            held.add(p);
        }
    }

    /** The tree failed (ledger, reconnect or safety timeout). */
    void failed(SpoutCollector.Pending p) {
        if (covered(p.messageId)) {
            toAck.add(p);
        } else if (p.emittedAt - rollbackAt < 0) {
            // Emitted before the last rollback: its effects are gone already.
            toFail.add(p);
        } else {
            if (!rollbackNeeded) {
                LOG.info("Effectively once: a tree of spout {} failed; the next checkpoint fails and the topology "
                        + "rolls back to the last complete one", name);
            }
            deferred.add(p);
            rollbackNeeded = true;
        }
    }

    /** The stream manager connection was lost: tuples may be lost with it, so the next PREPARE fails. */
    void reconnected() {
        rollbackNeeded = true;
    }

    /** What the instance does with a checkpoint action after {@link #onAction}. */
    enum Outcome { FORWARD, FAIL }

    Outcome onAction(Action action, long txid) {
        switch (action) {
            case PREPARE:
                if (!initialized || rollbackNeeded) {
                    LOG.info("Effectively once: spout {} fails PREPARE {} ({})", name, txid,
                            initialized ? "a tree failed since the last checkpoint" : "not initialized");
                    return Outcome.FAIL;
                }
                advanceComplete(txid - 1);
                state.put(txid, current);
                List<Object> again = windows.put(txid, current);
                if (again != null) {
                    // The same checkpoint prepared again: its new window replaces the old, in
                    // the state as here.
                    for (Object id : again) {
                        windowOf.remove(id, txid);
                    }
                }
                Long window = txid; // one box for the window's ids
                for (Object id : current) {
                    windowOf.put(id, window);
                }
                current = new ArrayList<>();
                while (!windows.isEmpty() && windows.firstKey() <= txid - KEPT_WINDOWS) {
                    long old = windows.firstKey();
                    for (Object id : windows.remove(old)) {
                        windowOf.remove(id, old);
                    }
                    state.delete(old);
                }
                state.prepareCommit(txid);
                paused = pauseAtPrepare || pauseNext;
                return Outcome.FORWARD;
            case COMMIT:
                // The windows here are the state's already (PREPARE changed both alike): no
                // reload, which would re-index every message id kept at every checkpoint.
                state.commit(txid);
                paused = false;
                pauseNext = false;
                return Outcome.FORWARD;
            case ROLLBACK:
                state.rollback();
                reload();
                current = new ArrayList<>();
                rollbackAt = System.nanoTime();
                rollbackNeeded = false;
                pauseNext = true;
                // Paused until INITSTATE, which the checkpoint spout sends once every task has
                // rolled back: a replay must not reach a task that has not rolled back yet.
                paused = true;
                advanceComplete(txid - 1);
                for (SpoutCollector.Pending p : deferred) {
                    (covered(p.messageId) ? toAck : toFail).add(p);
                }
                deferred.clear();
                LOG.info("Effectively once: spout {} rolled back to checkpoint {}", name, txid - 1);
                return Outcome.FORWARD;
            case INITSTATE:
            default:
                advanceComplete(txid);
                if (!initialized) {
                    initialized = true;
                    LOG.info("Effectively once: spout {} starts emitting after checkpoint {}", name, txid);
                }
                paused = false;
                return Outcome.FORWARD;
        }
    }

    /**
     * After a ROLLBACK forwarded: every tree still pending was emitted before it, so its
     * effects are rolled back (tuples ahead of the marker on every path) unless a complete
     * checkpoint holds them; it is failed (replayed after INITSTATE) or acked.
     */
    void rolledBack(List<SpoutCollector.Pending> pending) {
        for (SpoutCollector.Pending p : pending) {
            (covered(p.messageId) ? toAck : toFail).add(p);
        }
    }

    /**
     * Checkpoint {@code txid} (and every one before) is complete: the trees held so far were
     * completed by bolts that held their acks until a commit, so a complete checkpoint holds them.
     */
    private void advanceComplete(long txid) {
        if (txid > lastComplete) {
            lastComplete = txid;
        }
        toAck.addAll(held);
        held.clear();
    }

    /** The windows as the state holds them now (after a commit, a rollback, a restart). */
    private void reload() {
        windows.clear();
        windowOf.clear();
        for (Iterator<Map.Entry<Long, ArrayList<Object>>> it = state.iterator(); it.hasNext(); ) {
            Map.Entry<Long, ArrayList<Object>> e = it.next();
            windows.put(e.getKey(), e.getValue());
        }
        for (Map.Entry<Long, List<Object>> e : windows.entrySet()) {
            for (Object id : e.getValue()) {
                windowOf.put(id, e.getKey());
            }
        }
    }
}

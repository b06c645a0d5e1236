package dev.egret.instance;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.storm.spout.ISpoutOutputCollector;

/**
 * A spout task's collector and its pending trees.
 *
 * <p>With acking on, an emit with a message id starts a tree: a random non-zero key names
 * it, and {@code key -> (msgId, emit time)} stays pending until the stream manager reports
 * the tree's outcome (or the safety timer fails it). An emit without message id is
 * untracked. With acking off (Storm's topology.acker.executors=0) an emit with a message id
 * is acked right away: the id is queued here and the executor thread calls the spout's
 * {@code ack} once the current {@code nextTuple} has returned.
 *
 * <p>Thread-safety: synchronized on this collector; the spout callbacks themselves are made
 * by the executor thread only, never under this lock.
 */
final class SpoutCollector implements ISpoutOutputCollector {
    /** More pending acks than this means nextTuple emits without ever returning; cap memory anyway. */
    private static final int MAX_PENDING_ACKS = 1 << 20;

    /** One pending tree. */
    static final class Pending {
        final long key;
        final Object messageId;
        /** Stream of the root tuple (the spout's built-in statistics are per stream). */
        final String stream;
        /** Emit time (System.nanoTime): the complete latency runs from here to the ack callback. */
        final long emittedAt;
        /** Emit time, or the last TIMEOUT_RESET (System.nanoTime). */
        long since;

        Pending(long key, Object messageId, String stream, long since) {
            this.key = key;
            this.messageId = messageId;
            this.stream = stream;
            this.emittedAt = since;
            this.since = since;
        }
    }

    /** A message id to ack right away (acking off), with the stream it was emitted on. */
    static final class Untracked {
        final Object messageId;
        final String stream;

        Untracked(Object messageId, String stream) {
            this.messageId = messageId;
            this.stream = stream;
        }
    }

    private final TaskEmitter emitter;
    private final ErrorSink errors;
    private final OutboundSink sink;
    private final String component;
    private final boolean acking;
    private final ArrayDeque<Untracked> pendingAcks = new ArrayDeque<>();
    /** Pending trees by key, unboxed (one lookup per ack); the safety scan is a full pass. */
    private final LongTable<Pending> pending = new LongTable<>();
    /**
     * The next tree key: consecutive from a random start, so keys of this task's earlier
     * runs (trees a restarted spout's ledger may still hold) are not met again in practice.
     */
    private long nextKey = TaskEmitter.nonZeroRandom();
    /** Effectively once: de-duplicates emits and records them (null in the other modes). */
    private EffectivelyOnceSpout effectivelyOnce;

    SpoutCollector(TaskEmitter emitter, ErrorSink errors, OutboundSink sink, String component, boolean acking) {
        this.emitter = emitter;
        this.errors = errors;
        this.sink = sink;
        this.component = component;
        this.acking = acking;
    }

    void effectivelyOnce(EffectivelyOnceSpout eo) {
        this.effectivelyOnce = eo;
    }

    /**
     * Effectively once: true when a complete checkpoint already holds this message (its ack
     * is queued instead of an emit); otherwise the emit is recorded in the current window.
     */
    private boolean alreadyCovered(Object messageId, String streamId) {
        EffectivelyOnceSpout eo = effectivelyOnce;
        if (eo == null || messageId == null || !acking) {
            return false;
        }
        if (eo.covered(messageId)) {
            queueAck(messageId, streamId);
            return true;
        }
        eo.emitted(messageId);
        return false;
    }

    @Override
    public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
        List<Integer> targets;
        if (alreadyCovered(messageId, streamId)) {
            return new ArrayList<>();
        }
        if (messageId != null && acking) {
            long key = newTree(messageId, streamId);
            targets = emitter.emit(streamId, tuple, key, null);
        } else {
            targets = emitter.emit(streamId, tuple);
            if (messageId != null) {
                queueAck(messageId, streamId);
            }
        }
        emitter.eventLog(messageId, tuple);
        return targets;
    }

    @Override
    public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
        if (alreadyCovered(messageId, streamId)) {
            return;
        }
        if (messageId != null && acking) {
            long key = newTree(messageId, streamId);
            emitter.emitDirect(taskId, streamId, tuple, key, null);
        } else {
            emitter.emitDirect(taskId, streamId, tuple);
            if (messageId != null) {
                queueAck(messageId, streamId);
            }
        }
        emitter.eventLog(messageId, tuple);
    }

    /** Registers a pending tree under a fresh key. Registered before the emit so an outcome can never find it missing. */
    private synchronized long newTree(Object messageId, String stream) {
        long now = System.nanoTime();
        long key;
        // Consecutive keys from a random start: the pending trees sit in neighbouring slots
        // of the table (see LongTable.home), so an emit and an ack touch memory that the
        // last ones did. One lookup per tree (not containsKey then put); a key taken already
        // (a tree pending for 2^64 emits) is skipped, and 0 is never a key.
        do {
            key = nextKey++;
        } while (key == 0 || pending.putIfAbsent(key, new Pending(key, messageId, stream, now)) != null);
        return key;
    }

    private synchronized void queueAck(Object messageId, String stream) {
        if (pendingAcks.size() >= MAX_PENDING_ACKS) {
            throw new IllegalStateException("More than " + MAX_PENDING_ACKS
                    + " acks pending in one nextTuple call of " + component);
        }
        pendingAcks.add(new Untracked(messageId, stream));
    }

    /** Takes the next message id to ack right away (acking off), or null. */
    synchronized Untracked pollAck() {
        return pendingAcks.poll();
    }

    /** Removes a pending tree; null when the key is unknown (already completed, failed or never ours). */
    synchronized Pending remove(long key) {
        return pending.remove(key);
    }

    /** A bolt reset the tree's timeout: the safety timer restarts. */
    synchronized void resetTimer(long key, long now) {
        Pending p = pending.get(key);
        if (p != null) {
            p.since = now;
        }
    }

    /** Removes and returns every pending tree (after a reconnect: the new ledger does not know them). */
    synchronized List<Pending> removeAll() {
        return pending.removeAll();
    }

    /** Removes and returns the trees pending since before {@code cutoff} (nanoTime). */
    synchronized List<Pending> removeOlderThan(long cutoff) {
        return pending.removeIf(p -> p.since - cutoff < 0);
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    @Override
    public synchronized long getPendingCount() {
        return pending.size();
    }

    @Override
    public void flush() {
        sink.flush();
    }

    @Override
    public void reportError(Throwable error) {
        errors.report(emitter.taskId(), component, error, false);
    }
}

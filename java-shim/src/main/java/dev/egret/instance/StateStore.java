package dev.egret.instance;

/**
 * Where a task's durable state goes: the stream manager's checkpoint store, through the
 * instance's {@link StateChannel} (contracts.md, "Durable state"). Each call returns once the
 * store has carried it out.
 */
public interface StateStore {
    /**
     * Stores a task's state staged at PREPARE of {@code txid}: with {@code base} null, the whole
     * state; else what changed since the task's committed state of checkpoint {@code base}.
     */
    void savePrepared(int task, String namespace, long txid, Long base, byte[] data);

    /** As {@link #savePrepared}, at the COMMIT of {@code txid}. */
    void saveCommitted(int task, String namespace, long txid, Long base, byte[] data);

    /** The task's own state outside any checkpoint (a commit without a txid). */
    void saveLocal(int task, String namespace, byte[] data);

    /** With {@code local}, the task's newest own state; else the newest complete checkpoint's and a newer prepared one. */
    StateChannel.Loaded load(int task, String namespace, boolean local);
}

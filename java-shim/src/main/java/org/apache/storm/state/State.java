package org.apache.storm.state;

/**
 * The state of a stateful bolt, saved in two phases driven by the checkpoint stream:
 * {@link #prepareCommit} stages the current state for a transaction, {@link #commit(long)}
 * makes it durable, {@link #rollback} returns to the last committed state.
 */
public interface State {
    void prepareCommit(long txid);

    void commit(long txid);

    /** Commits the current state at once, outside the checkpoint protocol. */
    void commit();

    void rollback();
}

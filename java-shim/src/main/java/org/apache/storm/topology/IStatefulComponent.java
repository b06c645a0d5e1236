package org.apache.storm.topology;

import org.apache.storm.state.State;

/**
 * A component with {@link State} saved by the checkpoint protocol. The hooks run before
 * the state is prepared, committed or rolled back.
 */
public interface IStatefulComponent<T extends State> extends IComponent {
    /** Hands over the state (the last committed one) before any tuple is executed. */
    void initState(T state);

    void preCommit(long txid);

    void prePrepare(long txid);

    void preRollback();
}

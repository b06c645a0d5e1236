package org.apache.storm.topology;

import org.apache.storm.state.State;

/** A windowed bolt with checkpointed state. */
public interface IStatefulWindowedBolt<T extends State> extends IStatefulComponent<T>, IWindowedBolt {
    /** Whether the window itself is kept in the state ({@link PersistentWindowedBoltExecutor}). */
    default boolean isPersistent() {
        return false;
    }

    /** With persistence, how many events stay in memory. */
    default long maxEventsInMemory() {
        return 1_000_000L;
    }
}

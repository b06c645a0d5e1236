package org.apache.storm.windowing;

/**
 * Decides when a window is evaluated, calling its {@link TriggerHandler}.
 *
 * @param <T> the type of event
 * @param <S> the type of the policy's checkpointed state
 */
public interface TriggerPolicy<T, S> {
    /** Sees every event (watermarks included) as it is added; may trigger. */
    void track(Event<T> event);

    /** Called after each evaluation. */
    void reset();

    /** Starts triggering (events tracked before are only counted by policies that say so). */
    void start();

    /** Stops triggering and releases the policy's threads. */
    void shutdown();

    /** The policy's state, for checkpointing. */
    S getState();

    /** Restores a state from {@link #getState}. */
    void restoreState(S state);
}

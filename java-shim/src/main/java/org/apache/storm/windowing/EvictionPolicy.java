package org.apache.storm.windowing;

/**
 * Decides, event by event, which events a window holds when it is evaluated.
 *
 * @param <T> the type of event
 * @param <S> the type of the policy's checkpointed state
 */
public interface EvictionPolicy<T, S> {
    /** What a window evaluation does with an event. */
    enum Action {
        /** Drop the event for good (it is reported as expired). */
        EXPIRE,
        /** The event belongs to the window. */
        PROCESS,
        /** Not in this window, but keep it for a later one; go on with the next event. */
        KEEP,
        /** Not in this window, nor any event after it: stop the scan. */
        STOP
    }

    /** The action for {@code event} in the window being evaluated. */
    Action evict(Event<T> event);

    /** Sees every event (watermarks included) as it is added. */
    void track(Event<T> event);

    /** The context set before the latest evaluation, or null. */
    EvictionContext getContext();

    /** Sets the context of the next evaluation. */
    void setContext(EvictionContext context);

    /** Called after each evaluation. */
    void reset();

    /** The policy's state, for checkpointing. */
    S getState();

    /** Restores a state from {@link #getState}. */
    void restoreState(S state);
}

package org.apache.storm.windowing;

import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Told by a window manager when events expire and when a window activates.
 *
 * @param <T> the type of event
 */
public interface WindowLifecycleListener<T> {
    /** Events that left the window for good (called before the activation that reports them). */
    void onExpiry(List<T> events);

    /**
     * A window activates.
     *
     * @param events the events in the window, oldest first
     * @param newEvents the events of the window not reported in an earlier activation
     * @param expired the events that expired since the previous activation
     * @param referenceTime the window's end (ms)
     */
    default void onActivation(List<T> events, List<T> newEvents, List<T> expired, Long referenceTime) {
        throw new UnsupportedOperationException("Not implemented");
    }

    /**
     * A window activates, its events given as iterators (a persistent window, which may not
     * fit in memory); an iterator is valid only during this call.
     *
     * @param eventsIt the events in the window
     * @param newEventsIt the new events, or null when not tracked
     * @param expiredIt the expired events, or null when not tracked
     * @param referenceTime the window's end (ms)
     */
    default void onActivation(Supplier<Iterator<T>> eventsIt, Supplier<Iterator<T>> newEventsIt,
            Supplier<Iterator<T>> expiredIt, Long referenceTime) {
        throw new UnsupportedOperationException("Not implemented");
    }
}

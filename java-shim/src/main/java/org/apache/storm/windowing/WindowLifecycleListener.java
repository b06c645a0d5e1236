package org.apache.storm.windowing;

import java.util.List;

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
    void onActivation(List<T> events, List<T> newEvents, List<T> expired, Long referenceTime);
}

package org.apache.storm.windowing;

import java.util.Iterator;
import java.util.List;

/**
 * A window of events handed to a windowed bolt: all its events, the ones new since the
 * previous activation and the ones that expired since then.
 *
 * @param <T> the type of event
 */
public interface Window<T> {
    /** The events in the window. */
    List<T> get();

    /** An iterator over the events in the window. */
    default Iterator<T> getIter() {
        return get().iterator();
    }

    /** The events added since the previous activation that are in this window. */
    List<T> getNew();

    /** The events that expired since the previous activation. */
    List<T> getExpired();

    /** The window's end (its reference time, ms), or null when not known. */
    Long getEndTimestamp();

    /** The window's start (ms, exclusive) for duration windows; null for count windows. */
    Long getStartTimestamp();
}

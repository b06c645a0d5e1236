package org.apache.storm.windowing;

/**
 * An event in a window manager's queue: a value with its timestamp (arrival time or the
 * event's own time), or a watermark, which carries only a timestamp.
 *
 * @param <T> the type of the value
 */
public interface Event<T> {
    /** The event's timestamp in ms (for a watermark: every event up to it has arrived). */
    long getTimestamp();

    /** The value, or null for a watermark. */
    T get();

    /** Whether this is a watermark rather than a value. */
    boolean isWatermark();
}

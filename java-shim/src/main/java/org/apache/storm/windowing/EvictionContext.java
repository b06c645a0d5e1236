package org.apache.storm.windowing;

/** What an eviction policy evaluates against: set by the trigger policy before each trigger. */
public interface EvictionContext {
    /** The window's end (ms). */
    Long getReferenceTime();

    /** The sliding count, when the window slides by count. */
    Long getSlidingCount();

    /** The sliding interval (ms), when the window slides by time. */
    Long getSlidingInterval();

    /** How many events the window may hold up to the reference time, when known. */
    Long getCurrentCount();
}

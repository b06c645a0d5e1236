package org.apache.storm.windowing;

/** What a trigger policy calls when a window is due (the window manager). */
public interface TriggerHandler {
    /**
     * Evaluates the window now.
     *
     * @return true if the window held events (it was handed to the listener)
     */
    boolean onTrigger();
}

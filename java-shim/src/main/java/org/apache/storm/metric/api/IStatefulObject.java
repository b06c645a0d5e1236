package org.apache.storm.metric.api;

/** An object that can report its state (see {@link StateMetric}). */
public interface IStatefulObject {
    Object getState();
}

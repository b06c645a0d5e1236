package org.apache.storm.metric.api.rpc;

import org.apache.storm.metric.api.IReducer;
import org.apache.storm.metric.api.ReducedMetric;

/** A reduced metric (a mean, ...) a multilang subprocess updates: each value goes to the reducer. */
public class ReducedShellMetric extends ReducedMetric implements IShellMetric {
    public ReducedShellMetric(IReducer reducer) {
        super(reducer);
    }

    @Override
    public void updateMetricFromRPC(Object value) {
        update(value);
    }
}

package org.apache.storm.metric.api.rpc;

import org.apache.storm.metric.api.CombinedMetric;
import org.apache.storm.metric.api.ICombiner;

/** A combined metric a multilang subprocess updates: each value is combined into the current one. */
public class CombinedShellMetric extends CombinedMetric implements IShellMetric {
    public CombinedShellMetric(ICombiner combiner) {
        super(combiner);
    }

    @Override
    public void updateMetricFromRPC(Object value) {
        update(value);
    }
}

package org.apache.storm.metric.api.rpc;

import org.apache.storm.metric.api.AssignableMetric;

/** An {@link AssignableMetric} a multilang component sets over RPC (the value it sends replaces the last). */
public class AssignableShellMetric extends AssignableMetric implements IShellMetric {
    public AssignableShellMetric(Object value) {
        super(value);
    }

    @Override
    public void updateMetricFromRPC(Object value) {
        setValue(value);
    }
}

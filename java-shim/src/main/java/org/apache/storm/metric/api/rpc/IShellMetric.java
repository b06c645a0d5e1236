package org.apache.storm.metric.api.rpc;

import org.apache.storm.metric.api.IMetric;

/**
 * A metric that a multilang subprocess updates with its {@code metrics} command: ShellBolt and
 * ShellSpout pass the command's {@code params} to the metric registered under its name.
 */
public interface IShellMetric extends IMetric {
    /** Applies one update sent by the subprocess; the shape of {@code value} is the metric's own. */
    void updateMetricFromRPC(Object value);
}

package org.apache.storm.metrics2;

import com.codahale.metrics.MetricRegistry;

/**
 * Storm's worker-wide v2 metrics registry. Egret keeps v2 metrics per task (see
 * {@code TopologyContext.registerTimer} and friends); this type exists so the Storm
 * constructors that take it link, and gives access to one Dropwizard registry.
 */
public class StormMetricRegistry {
    private final MetricRegistry registry = new MetricRegistry();

    public MetricRegistry getRegistry() {
        return registry;
    }
}

package org.apache.storm.metrics2;

import com.codahale.metrics.MetricRegistry;
import java.util.Map;

/** Where reporters find the metrics: the full-name registry and the per-task metrics with their dimensions. */
public interface MetricRegistryProvider {
    MetricRegistry getRegistry();

    Map<TaskMetricDimensions, TaskMetricRepo> getTaskMetrics();
}

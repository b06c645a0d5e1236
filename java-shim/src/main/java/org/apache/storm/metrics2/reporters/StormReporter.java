package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reporter;
import java.util.Map;
import org.apache.storm.metrics2.MetricRegistryProvider;

/**
 * A reporter of a worker's v2 metrics, one entry of {@code topology.metrics.reporters}: created
 * with its no-argument constructor, prepared with the topology config and its own entry, started,
 * and stopped when the worker stops.
 */
public interface StormReporter extends Reporter {
    String REPORT_PERIOD = "report.period";
    String REPORT_PERIOD_UNITS = "report.period.units";
    String REPORT_DIMENSIONS_ENABLED = "report.dimensions.enabled";

    void prepare(MetricRegistry metricsRegistry, Map<String, Object> topoConf, Map<String, Object> reporterConf);

    /** What the worker calls; reporters without dimensions use the provider's registry. */
    default void prepare(MetricRegistryProvider metricRegistryProvider, Map<String, Object> topoConf,
                         Map<String, Object> reporterConf) {
        prepare(metricRegistryProvider.getRegistry(), topoConf, reporterConf);
    }

    void start();

    void stop();
}

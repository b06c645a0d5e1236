package org.apache.storm.metrics2;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.ScheduledReporter;
import com.codahale.metrics.Timer;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reports the task metrics one set of dimensions at a time: at each report, for every task's
 * {@link TaskMetricRepo} of the provider, the handler is told the dimensions and the
 * (unstarted) underlying reporter then reports that task's metrics under their short names.
 */
public class DimensionalReporter extends ScheduledReporter {
    private final ScheduledReporter underlyingReporter;
    private final MetricRegistryProvider metricRegistryProvider;
    private final MetricFilter filter;
    private final DimensionHandler dimensionHandler;

    public DimensionalReporter(MetricRegistryProvider metricRegistryProvider, ScheduledReporter unstartedReporter,
                               DimensionHandler dimensionHandler, String name, MetricFilter filter,
                               TimeUnit rateUnit, TimeUnit durationUnit, ScheduledExecutorService executor,
                               boolean shutdownExecutorOnStop) {
        super(metricRegistryProvider.getRegistry(), name, filter == null ? MetricFilter.ALL : filter, rateUnit,
                durationUnit, executor, shutdownExecutorOnStop);
        this.underlyingReporter = unstartedReporter;
        this.metricRegistryProvider = metricRegistryProvider;
        this.filter = filter;
        this.dimensionHandler = dimensionHandler;
    }

    /** The registry-wide maps are ignored: the metrics are reported per task, see {@link #report()}. */
    @Override
    public void report(SortedMap<String, Gauge> gauges, SortedMap<String, Counter> counters,
                       SortedMap<String, Histogram> histograms, SortedMap<String, Meter> meters,
                       SortedMap<String, Timer> timers) {
        report();
    }

    @Override
    public void report() {
        for (Map.Entry<TaskMetricDimensions, TaskMetricRepo> e : metricRegistryProvider.getTaskMetrics().entrySet()) {
            if (dimensionHandler != null) {
                dimensionHandler.setDimensions(e.getKey().getDimensions());
            }
            e.getValue().report(underlyingReporter, filter);
        }
    }

    /** Told the dimensions of the metrics about to be reported. */
    public interface DimensionHandler {
        void setDimensions(Map<String, String> dimensions);
    }
}

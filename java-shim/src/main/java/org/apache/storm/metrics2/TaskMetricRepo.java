package org.apache.storm.metrics2;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.ScheduledReporter;
import com.codahale.metrics.Timer;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** The metrics of one set of task dimensions, by their short (user-given) names. */
public class TaskMetricRepo {
    private final ConcurrentHashMap<String, Gauge> gauges = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Histogram> histograms = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Meter> meters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();

    public TaskMetricRepo() {
    }

    public void addCounter(String name, Counter counter) {
        counters.put(name, counter);
    }

    public void addGauge(String name, Gauge gauge) {
        gauges.put(name, gauge);
    }

    public void addMeter(String name, Meter meter) {
        meters.put(name, meter);
    }

    public void addHistogram(String name, Histogram histogram) {
        histograms.put(name, histogram);
    }

    public void addTimer(String name, Timer timer) {
        timers.put(name, timer);
    }

    /** Hands the metrics the filter accepts (all when null) to the reporter, sorted by name. */
    public void report(ScheduledReporter reporter, MetricFilter filter) {
        reporter.report(select(gauges, filter), select(counters, filter), select(histograms, filter),
                select(meters, filter), select(timers, filter));
    }

    void degister(MetricFilter filter) {
        gauges.entrySet().removeIf(e -> filter.matches(e.getKey(), e.getValue()));
        counters.entrySet().removeIf(e -> filter.matches(e.getKey(), e.getValue()));
        histograms.entrySet().removeIf(e -> filter.matches(e.getKey(), e.getValue()));
        meters.entrySet().removeIf(e -> filter.matches(e.getKey(), e.getValue()));
        timers.entrySet().removeIf(e -> filter.matches(e.getKey(), e.getValue()));
    }

    private static <T extends Metric> SortedMap<String, T> select(Map<String, T> metrics, MetricFilter filter) {
        SortedMap<String, T> out = new TreeMap<>();
        for (Map.Entry<String, T> e : metrics.entrySet()) {
            if (filter == null || filter.matches(e.getKey(), e.getValue())) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }
}

package org.apache.storm.task;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricSet;
import com.codahale.metrics.Timer;
import org.apache.storm.metric.api.CombinedMetric;
import org.apache.storm.metric.api.ICombiner;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metric.api.IReducer;
import org.apache.storm.metric.api.ReducedMetric;

/** Where a task registers its metrics: v1 ({@code registerMetric}) and v2 (Dropwizard). */
public interface IMetricsContext {
    <T extends IMetric> T registerMetric(String name, T metric, int timeBucketSizeInSecs);

    ReducedMetric registerMetric(String name, IReducer reducer, int timeBucketSizeInSecs);

    CombinedMetric registerMetric(String name, ICombiner combiner, int timeBucketSizeInSecs);

    Timer registerTimer(String name);

    Histogram registerHistogram(String name);

    Meter registerMeter(String name);

    Counter registerCounter(String name);

    <T> Gauge<T> registerGauge(String name, Gauge<T> gauge);

    void registerMetricSet(String prefix, MetricSet set);
}

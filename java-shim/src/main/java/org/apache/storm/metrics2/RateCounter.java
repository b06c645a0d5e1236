package org.apache.storm.metrics2;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;

/**
 * A counter, registered under its name, plus a gauge {@code <name>.m1_rate}: the events per
 * second over about the last minute, recomputed by its registry every
 * {@link StormMetricRegistry#getRateCounterUpdateIntervalSeconds()} seconds. Cheaper than a
 * Meter on the hot path (an increment only).
 */
public class RateCounter implements Gauge<Double> {
    private final Counter counter;
    private volatile double currentRate;
    private int time;
    /** Ring of counts taken at each update; one slot more than the window holds. */
    private final long[] values;
    private final int timeSpanInSeconds;

    RateCounter(StormMetricRegistry registry, String metricName, String topologyId, String componentId,
                int taskId, int workerPort, String streamId) {
        if (streamId != null) {
            counter = registry.counter(metricName, topologyId, componentId, taskId, workerPort, streamId);
            registry.gauge(metricName + ".m1_rate", this, topologyId, componentId, streamId, taskId, workerPort);
        } else {
            counter = registry.counter(metricName, componentId, taskId);
            registry.gauge(metricName + ".m1_rate", this, componentId, taskId);
        }
        int interval = registry.getRateCounterUpdateIntervalSeconds();
        timeSpanInSeconds = Math.max(60 - (60 % interval), interval);
        values = new long[timeSpanInSeconds / interval + 1];
    }

    RateCounter(StormMetricRegistry registry, String metricName, String topologyId, String componentId,
                int taskId, int workerPort) {
        this(registry, metricName, topologyId, componentId, taskId, workerPort, null);
    }

    /** Events per second over the last window (0 until the registry has updated it). */
    @Override
    public Double getValue() {
        return currentRate;
    }

    public void inc(long n) {
        counter.inc(n);
    }

    /** Takes the count now; the rate is the growth since the oldest count of the ring. */
    synchronized void update() {
        time = (time + 1) % values.length;
        values[time] = counter.getCount();
        long oldest = values[(time + 1) % values.length];
        currentRate = (double) (values[time] - oldest) / timeSpanInSeconds;
    }

    Counter getCounter() {
        return counter;
    }
}

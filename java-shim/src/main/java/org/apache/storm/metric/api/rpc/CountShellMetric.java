package org.apache.storm.metric.api.rpc;

import org.apache.storm.metric.api.CountMetric;

/** A count a multilang subprocess updates: no value counts one, an integer adds it. */
public class CountShellMetric extends CountMetric implements IShellMetric {
    /**
     * Null increments by one; a Long (or any integral number: JSON parsers differ) adds
     * that much; anything else is refused.
     */
    @Override
    public void updateMetricFromRPC(Object value) {
        if (value == null) {
            incr();
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            incrBy(((Number) value).longValue());
        } else {
            throw new RuntimeException("CountShellMetric updateMetricFromRPC params should be null or Long");
        }
    }
}

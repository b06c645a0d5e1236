package org.apache.storm.metric.api;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts per key. Every key ever scoped stays in the reported map, with 0 for a bucket in
 * which it was not incremented.
 */
public class MultiCountMetric implements IMetric {
    final Map<String, CountMetric> value = new HashMap<>();

    public MultiCountMetric() {
    }

    public CountMetric scope(String key) {
        return value.computeIfAbsent(key, k -> new CountMetric());
    }

    @Override
    public Map<String, Object> getValueAndReset() {
        Map<String, Object> ret = new HashMap<>();
        for (Map.Entry<String, CountMetric> e : value.entrySet()) {
            ret.put(e.getKey(), e.getValue().getValueAndReset());
        }
        return ret;
    }
}

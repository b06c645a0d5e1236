package org.apache.storm.metric.api;

import java.util.HashMap;
import java.util.Map;

/** A {@link ReducedMetric} per key; keys whose bucket result is null are left out of the map. */
public class MultiReducedMetric implements IMetric {
    final Map<String, ReducedMetric> value = new HashMap<>();
    final IReducer reducer;

    public MultiReducedMetric(IReducer reducer) {
        this.reducer = reducer;
    }

    public ReducedMetric scope(String key) {
        return value.computeIfAbsent(key, k -> new ReducedMetric(reducer));
    }

    @Override
    public Map<String, Object> getValueAndReset() {
        Map<String, Object> ret = new HashMap<>();
        for (Map.Entry<String, ReducedMetric> e : value.entrySet()) {
            Object v = e.getValue().getValueAndReset();
            if (v != null) {
                ret.put(e.getKey(), v);
            }
        }
        return ret;
    }
}

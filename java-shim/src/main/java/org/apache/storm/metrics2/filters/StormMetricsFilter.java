package org.apache.storm.metrics2.filters;

import com.codahale.metrics.MetricFilter;
import java.util.Map;

/**
 * A metric filter a reporter's config names: {@code filter: {class: ..., <its keys>}}; created
 * with its no-argument constructor, then given that map.
 */
public interface StormMetricsFilter extends MetricFilter {
    void prepare(Map<String, Object> config);
}

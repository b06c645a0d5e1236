package org.apache.storm.metric.api;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/** An object that registers its own metrics with a task's context. */
public interface IMetricsRegistrant {
    void registerMetrics(TopologyContext context, Map<String, Object> topoConf);
}

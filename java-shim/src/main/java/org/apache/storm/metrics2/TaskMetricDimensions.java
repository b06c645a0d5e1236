package org.apache.storm.metrics2;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The dimensions of one task's metrics, for reporters with {@code report.dimensions.enabled}:
 * {@code taskid}, {@code componentId} and {@code streamId} (when known), {@code hostname},
 * {@code topologyId}, {@code port}. Equal when task, component and stream are.
 */
public class TaskMetricDimensions {
    private final int taskId;
    private final String componentId;
    private final String streamId;
    private final Map<String, String> dimensions = new HashMap<>();

    public TaskMetricDimensions(int taskId, String componentId, String streamId, StormMetricRegistry metricRegistry) {
        this.taskId = taskId;
        this.componentId = componentId == null ? "" : componentId;
        this.streamId = streamId == null ? "" : streamId;
        dimensions.put("taskid", Integer.toString(taskId));
        if (componentId != null) {
            dimensions.put("componentId", componentId);
        }
        if (streamId != null) {
            dimensions.put("streamId", streamId);
        }
        dimensions.put("hostname", metricRegistry.getHostName());
        dimensions.put("topologyId", metricRegistry.getTopologyId());
        dimensions.put("port", String.valueOf(metricRegistry.getPort()));
    }

    public Map<String, String> getDimensions() {
        return dimensions;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        TaskMetricDimensions other = (TaskMetricDimensions) o;
        return taskId == other.taskId && componentId.equals(other.componentId) && streamId.equals(other.streamId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(taskId, componentId, streamId);
    }
}

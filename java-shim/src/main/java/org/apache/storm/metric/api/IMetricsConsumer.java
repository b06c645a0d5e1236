package org.apache.storm.metric.api;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.task.TopologyContext;

/**
 * Receives the metrics of every task of a topology. Registered with
 * {@code topology.metrics.consumer.register} ({@code Config.registerMetricsConsumer}); each
 * registration becomes a system bolt whose tasks call {@link #handleDataPoints} once per
 * (task, bucket) with that bucket's data points.
 */
public interface IMetricsConsumer {
    void prepare(Map<String, Object> topoConf, Object registrationArgument, TopologyContext context,
                 IErrorReporter errorReporter);

    void handleDataPoints(TaskInfo taskInfo, Collection<DataPoint> dataPoints);

    void cleanup();

    /** Where a batch of data points comes from. {@code timestamp} is in seconds since the epoch. */
    class TaskInfo {
        public String srcWorkerHost;
        public int srcWorkerPort;
        public String srcComponentId;
        public int srcTaskId;
        public long timestamp;
        public int updateIntervalSecs;

        public TaskInfo() {
        }

        public TaskInfo(String srcWorkerHost, int srcWorkerPort, String srcComponentId, int srcTaskId,
                        long timestamp, int updateIntervalSecs) {
            this.srcWorkerHost = srcWorkerHost;
            this.srcWorkerPort = srcWorkerPort;
            this.srcComponentId = srcComponentId;
            this.srcTaskId = srcTaskId;
            this.timestamp = timestamp;
            this.updateIntervalSecs = updateIntervalSecs;
        }

        @Override
        public String toString() {
            return "TASK_INFO: { host: " + srcWorkerHost + ":" + srcWorkerPort + " comp: " + srcComponentId
                    + "[" + srcTaskId + "] ts: " + timestamp + " interval: " + updateIntervalSecs + " }";
        }
    }

    /** One metric's value for one bucket. */
    class DataPoint {
        public String name;
        public Object value;
        public Map<String, String> dimensions;

        public DataPoint() {
            this.dimensions = new HashMap<>();
        }

        public DataPoint(String name, Object value) {
            this(name, value, null);
        }

        /** Dimensions are copied into a HashMap: the tuple's Kryo serializes it without Java fallback. */
        public DataPoint(String name, Object value, Map<String, String> dimensions) {
            this.name = name;
            this.value = value;
            this.dimensions = dimensions == null || dimensions.isEmpty() ? new HashMap<>() : new HashMap<>(dimensions);
        }

        @Override
        public String toString() {
            return "[" + name + " = " + value + (dimensions == null || dimensions.isEmpty() ? "" : " " + dimensions)
                    + "]";
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof DataPoint)) {
                return false;
            }
            DataPoint d = (DataPoint) o;
            return Objects.equals(name, d.name) && Objects.equals(value, d.value)
                    && Objects.equals(dimensions, d.dimensions);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, value, dimensions);
        }
    }
}

package org.apache.storm.metric;

import java.util.Collection;
import java.util.Map;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs every data point on one line, in Storm's layout: the bucket's timestamp (seconds),
 * {@code host:port}, {@code task:component}, the metric name padded to 23 characters and
 * the value, separated by tabs. Storm routes this logger to a dedicated metrics log; in
 * Egret the consumer runs as its own instance, so the lines land in that instance's log
 * ({@code logs/__metrics_org.apache.storm.metric.LoggingMetricsConsumer-0.log}).
 */
public class LoggingMetricsConsumer implements IMetricsConsumer {
    public static final Logger LOG = LoggerFactory.getLogger(LoggingMetricsConsumer.class);
    private static final int NAME_WIDTH = 23;

    public LoggingMetricsConsumer() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, Object registrationArgument, TopologyContext context,
                        IErrorReporter errorReporter) {
    }

    @Override
    public void handleDataPoints(TaskInfo taskInfo, Collection<DataPoint> dataPoints) {
        String header = String.format("%d\t%15s:%-4d\t%3d:%-11s\t", taskInfo.timestamp, taskInfo.srcWorkerHost,
                taskInfo.srcWorkerPort, taskInfo.srcTaskId, taskInfo.srcComponentId);
        for (DataPoint p : dataPoints) {
            LOG.info(line(header, p));
        }
    }

    static String line(String header, DataPoint p) {
        StringBuilder sb = new StringBuilder(header.length() + 64).append(header);
        String name = String.valueOf(p.name);
        if (name.length() > NAME_WIDTH) {
            sb.append(name, 0, NAME_WIDTH);
        } else {
            sb.append(name);
            for (int i = name.length(); i < NAME_WIDTH; i++) {
                sb.append(' ');
            }
        }
        return sb.append('\t').append(p.value).toString();
    }

    @Override
    public void cleanup() {
    }
}

package org.apache.storm.metric;

import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;

/** Test access to {@link LoggingMetricsConsumer}'s line layout. */
public final class LoggingMetricsConsumerLine {
    private LoggingMetricsConsumerLine() {
    }

    public static String of(String header, DataPoint p) {
        return LoggingMetricsConsumer.line(header, p);
    }
}

package org.apache.storm.metric.internal;

import java.util.Timer;

/** The one daemon timer that rotates the buckets of every stat made with the wall clock. */
final class MetricStatTimer {
    static final Timer TIMER = new Timer("metric-stat-timer", true);

    private MetricStatTimer() {
    }
}

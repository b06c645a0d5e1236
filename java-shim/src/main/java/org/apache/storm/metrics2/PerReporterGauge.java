package org.apache.storm.metrics2;

import com.codahale.metrics.Gauge;

/** A gauge whose value may depend on the reporter asking (reporters that know it pass themselves). */
public abstract class PerReporterGauge<T> implements Gauge<T> {
    public PerReporterGauge() {
    }

    public abstract T getValueForReporter(Object reporter);
}

package org.apache.storm.metric.api;

/** A metric holding the last value assigned; reading does not reset it. */
public class AssignableMetric implements IMetric {
    Object value;

    public AssignableMetric(Object value) {
        this.value = value;
    }

    public void setValue(Object value) {
        this.value = value;
    }

    @Override
    public Object getValueAndReset() {
        return value;
    }
}

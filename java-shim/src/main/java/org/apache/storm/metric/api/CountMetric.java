package org.apache.storm.metric.api;

/** A count per bucket: the value is the sum of the increments since the last read. */
public class CountMetric implements IMetric {
    long value = 0;

    public CountMetric() {
    }

    public void incr() {
        value++;
    }

    public void incrBy(long incrementBy) {
        value += incrementBy;
    }

    @Override
    public Object getValueAndReset() {
        long v = value;
        value = 0;
        return v;
    }
}

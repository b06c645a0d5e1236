package org.apache.storm.metric.api;

/** A metric whose bucket value is the combination of every update made in the bucket. */
public class CombinedMetric implements IMetric {
    private final ICombiner combiner;
    private Object value;

    public CombinedMetric(ICombiner combiner) {
        this.combiner = combiner;
        this.value = combiner.identity();
    }

    @SuppressWarnings("unchecked")
    public void update(Object value) {
        this.value = combiner.combine(this.value, value);
    }

    @Override
    public Object getValueAndReset() {
        Object ret = value;
        value = combiner.identity();
        return ret;
    }
}

package org.apache.storm.metric.api;

/** Reports the current state of an {@link IStatefulObject} in every bucket. */
public class StateMetric implements IMetric {
    private final IStatefulObject obj;

    public StateMetric(IStatefulObject obj) {
        this.obj = obj;
    }

    @Override
    public Object getValueAndReset() {
        return obj.getState();
    }
}

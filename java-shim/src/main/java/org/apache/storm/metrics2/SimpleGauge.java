package org.apache.storm.metrics2;

import com.codahale.metrics.Gauge;

/** A gauge holding the last value set. */
public class SimpleGauge<T> implements Gauge<T> {
    private volatile T value;

    public SimpleGauge(T value) {
        this.value = value;
    }

    @Override
    public T getValue() {
        return value;
    }

    public void set(T value) {
        this.value = value;
    }
}

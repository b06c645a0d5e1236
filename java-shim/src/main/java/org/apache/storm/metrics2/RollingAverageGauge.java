package org.apache.storm.metrics2;

import com.codahale.metrics.Gauge;

/** The mean of the last three values added (a value not yet added counts as 0). */
public class RollingAverageGauge implements Gauge<Double> {
    private final double[] samples = new double[3];
    private int index;

    public RollingAverageGauge() {
    }

    @Override
    public Double getValue() {
        synchronized (this) {
            double total = 0;
            for (double s : samples) {
                total += s;
            }
            return total / samples.length;
        }
    }

    public void addValue(double value) {
        synchronized (this) {
            samples[index] = value;
            index = (index + 1) % samples.length;
        }
    }
}

package org.apache.storm.grouping;

/**
 * How loaded a target task is: its bolt's load (the share of its input queue in use, 0 to 1) and
 * the load of the connection to it. {@link #getLoad()} is the larger of the two.
 */
public class Load {
    private final boolean hasMetrics;
    private final double boltLoad;
    private final double connectionLoad;

    public Load(boolean hasMetrics, double boltLoad, double connectionLoad) {
        this.hasMetrics = hasMetrics;
        this.boltLoad = boltLoad;
        this.connectionLoad = connectionLoad;
    }

    /** Whether the numbers were measured (false for a target nothing is known about). */
    public boolean hasMetrics() {
        return hasMetrics;
    }

    public double getBoltLoad() {
        return boltLoad;
    }

    public double getConnectionLoad() {
        return connectionLoad;
    }

    public double getLoad() {
        return Math.max(boltLoad, connectionLoad);
    }

    @Override
    public String toString() {
        return "[:load " + boltLoad + " " + connectionLoad + (hasMetrics ? "" : " (no metrics)") + "]";
    }
}

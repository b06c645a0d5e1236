package org.apache.storm.cluster;

import org.apache.storm.generated.ExecutorStats;

/** One executor's heartbeat as the cluster state holds it: when, uptime, and its stats. */
public class ExecutorBeat {
    private final int timeSecs;
    private final int uptime;
    private final ExecutorStats stats;

    public ExecutorBeat(int timeSecs, int uptime, ExecutorStats stats) {
        this.timeSecs = timeSecs;
        this.uptime = uptime;
        this.stats = stats;
    }

    public int getTimeSecs() {
        return timeSecs;
    }

    public int getUptime() {
        return uptime;
    }

    public ExecutorStats getStats() {
        return stats;
    }
}

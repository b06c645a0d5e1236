package org.apache.storm.metric.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link LatencyStat} per key (e.g. per stream): average latencies over the windows of
 * Storm's statistics, each key's stat made on its first record.
 */
public class MultiLatencyStat<T> {
    private final int numBuckets;
    private final ConcurrentHashMap<T, LatencyStat> lat = new ConcurrentHashMap<>();

    public MultiLatencyStat(int numBuckets) {
        if (numBuckets <= 0) {
            throw new IllegalArgumentException("numBuckets must be positive, was " + numBuckets);
        }
        this.numBuckets = numBuckets;
    }

    /** Records one latency of {@code key}. */
    public void record(T key, long latency) {
        lat.computeIfAbsent(key, k -> new LatencyStat(numBuckets)).record(latency);
    }

    /** Window name to key to average latency. */
    public Map<String, Map<T, Double>> getTimeLatAvg() {
        Map<String, Map<T, Double>> ret = new HashMap<>();
        for (Map.Entry<T, LatencyStat> e : lat.entrySet()) {
            for (Map.Entry<String, Double> w : e.getValue().getTimeLatAvg().entrySet()) {
                ret.computeIfAbsent(w.getKey(), k -> new HashMap<>()).put(e.getKey(), w.getValue());
            }
        }
        return ret;
    }

    /** Stops every key's timer. */
    public void close() {
        for (LatencyStat stat : lat.values()) {
            stat.close();
        }
    }
}

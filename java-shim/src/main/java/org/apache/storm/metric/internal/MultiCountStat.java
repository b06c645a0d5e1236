package org.apache.storm.metric.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CountStat} per key (e.g. per stream): counts over the windows of Storm's statistics
 * ({@code "600"}, {@code "10800"}, {@code "86400"}, {@code ":all-time"}), each key's stat made
 * on its first increment.
 */
public class MultiCountStat<T> {
    public static final int TEN_MIN_IN_SECONDS = 60 * 10;
    public static final String TEN_MIN_IN_SECONDS_STR = String.valueOf(TEN_MIN_IN_SECONDS);

    private final int numBuckets;
    private final ConcurrentHashMap<T, CountStat> counts = new ConcurrentHashMap<>();

    /** Each key's stat has {@code numBuckets} buckets over its 10 minutes. */
    public MultiCountStat(int numBuckets) {
        if (numBuckets <= 0) {
            throw new IllegalArgumentException("numBuckets must be positive, was " + numBuckets);
        }
        this.numBuckets = numBuckets;
    }

    /** Adds {@code count} to {@code key}'s stat. */
    public void incBy(T key, long count) {
        counts.computeIfAbsent(key, k -> new CountStat(numBuckets)).incBy(count);
    }

    protected String keyToString(T key) {
        return String.valueOf(key);
    }

    /** Window name to key to count. */
    public Map<String, Map<T, Long>> getTimeCounts() {
        Map<String, Map<T, Long>> ret = new HashMap<>();
        for (Map.Entry<T, CountStat> e : counts.entrySet()) {
            for (Map.Entry<String, Long> w : e.getValue().getTimeCounts().entrySet()) {
                ret.computeIfAbsent(w.getKey(), k -> new HashMap<>()).put(e.getKey(), w.getValue());
            }
        }
        return ret;
    }

    /** Stops every key's timer. */
    public void close() {
        for (CountStat stat : counts.values()) {
            stat.close();
        }
    }
}

package org.apache.storm.utils;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * A map whose entries expire by rotation: entries live in {@code numBuckets} buckets (default
 * 3); {@link #put} writes into the newest bucket, {@link #rotate()} drops the oldest bucket,
 * hands each of its entries to the {@link ExpiredCallback} and returns them. An entry not
 * written again thus expires after between {@code numBuckets - 1} and {@code numBuckets}
 * rotations. Not thread-safe (the caller rotates from its own tick, as Storm's executors do).
 */
public class RotatingMap<K, V> {
    private static final int DEFAULT_NUM_BUCKETS = 3;

    /** Told of each entry a rotation expires. */
    public interface ExpiredCallback<K, V> {
        void expire(K key, V val);
    }

    private final Deque<HashMap<K, V>> buckets = new ArrayDeque<>(); // newest first
    private final ExpiredCallback<K, V> callback;

    public RotatingMap(int numBuckets, ExpiredCallback<K, V> callback) {
        if (numBuckets < 2) {
            throw new IllegalArgumentException("numBuckets must be >= 2");
        }
        for (int i = 0; i < numBuckets; i++) {
            buckets.addLast(new HashMap<>());
        }
        this.callback = callback;
    }

    public RotatingMap(ExpiredCallback<K, V> callback) {
        this(DEFAULT_NUM_BUCKETS, callback);
    }

    public RotatingMap(int numBuckets) {
        this(numBuckets, null);
    }

    /** Drops the oldest bucket, telling the callback of each of its entries; returns them. */
    public Map<K, V> rotate() {
        HashMap<K, V> dead = buckets.removeLast();
        buckets.addFirst(new HashMap<>());
        if (callback != null) {
            for (Map.Entry<K, V> e : dead.entrySet()) {
                callback.expire(e.getKey(), e.getValue());
            }
        }
        return dead;
    }

    public boolean containsKey(K key) {
        for (HashMap<K, V> bucket : buckets) {
            if (bucket.containsKey(key)) {
                return true;
            }
        }
        return false;
    }

    public V get(K key) {
        for (HashMap<K, V> bucket : buckets) {
            if (bucket.containsKey(key)) {
                return bucket.get(key);
            }
        }
        return null;
    }

    /** Writes into the newest bucket (the entry's expiry starts over). */
    public void put(K key, V value) {
        boolean first = true;
        for (HashMap<K, V> bucket : buckets) {
            if (first) {
                bucket.put(key, value);
                first = false;
            } else {
                bucket.remove(key);
            }
        }
    }

    public V remove(K key) {
        for (HashMap<K, V> bucket : buckets) {
            if (bucket.containsKey(key)) {
                return bucket.remove(key);
            }
        }
        return null;
    }

    public int size() {
        int size = 0;
        for (HashMap<K, V> bucket : buckets) {
            size += bucket.size();
        }
        return size;
    }
}

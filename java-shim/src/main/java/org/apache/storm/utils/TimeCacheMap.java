package org.apache.storm.utils;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.Map;

/**
 * Storm's deprecated expiring map (kept in storm-client 2.x; 1.x topologies such as
 * storm-starter's SingleJoinBolt use it): entries expire between {@code expirationSecs} and
 * {@code expirationSecs * (1 + 1 / (numBuckets - 1))} seconds after their last
 * {@code put}, and the callback is told of each, on a daemon cleaner thread, as Storm does.
 * Thread-safe; {@link #cleanup()} stops the cleaner.
 */
public class TimeCacheMap<K, V> {
    private static final int DEFAULT_NUM_BUCKETS = 3;

    private final LinkedList<HashMap<K, V>> buckets = new LinkedList<>();
    private final Object lock = new Object();
    private final Thread cleaner;
    private final ExpiredCallback<K, V> callback;

    public TimeCacheMap(int expirationSecs, int numBuckets, ExpiredCallback<K, V> callback) {
        if (numBuckets < 2) {
            throw new IllegalArgumentException("numBuckets must be >= 2");
        }
        for (int i = 0; i < numBuckets; i++) {
            buckets.add(new HashMap<>());
        }
        this.callback = callback;
        long sleepMillis = expirationSecs * 1000L / (numBuckets - 1);
        cleaner = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(sleepMillis);
                    Map<K, V> dead;
                    synchronized (lock) {
                        dead = buckets.removeLast();
                        buckets.addFirst(new HashMap<>());
                    }
                    if (this.callback != null) {
                        for (Map.Entry<K, V> entry : dead.entrySet()) {
                            this.callback.expire(entry.getKey(), entry.getValue());
                        }
                    }
                }
            } catch (InterruptedException e) {
                // cleanup() stops the cleaner
            }
        }, "TimeCacheMap-cleaner");
        cleaner.setDaemon(true);
        cleaner.start();
    }

    public TimeCacheMap(int expirationSecs, ExpiredCallback<K, V> callback) {
        this(expirationSecs, DEFAULT_NUM_BUCKETS, callback);
    }

    public TimeCacheMap(int expirationSecs) {
        this(expirationSecs, DEFAULT_NUM_BUCKETS);
    }

    public TimeCacheMap(int expirationSecs, int numBuckets) {
        this(expirationSecs, numBuckets, null);
    }

    public boolean containsKey(K key) {
        synchronized (lock) {
            for (HashMap<K, V> bucket : buckets) {
                if (bucket.containsKey(key)) {
                    return true;
                }
            }
            return false;
        }
    }

    public V get(K key) {
        synchronized (lock) {
            for (HashMap<K, V> bucket : buckets) {
                if (bucket.containsKey(key)) {
                    return bucket.get(key);
                }
            }
            return null;
        }
    }

    /** Puts in the newest bucket (restarting the entry's expiry). */
    public void put(K key, V value) {
        synchronized (lock) {
            Iterator<HashMap<K, V>> it = buckets.iterator();
            it.next().put(key, value);
            while (it.hasNext()) {
                it.next().remove(key);
            }
        }
    }

    public Object remove(K key) {
        synchronized (lock) {
            for (HashMap<K, V> bucket : buckets) {
                if (bucket.containsKey(key)) {
                    return bucket.remove(key);
                }
            }
            return null;
        }
    }

    public int size() {
        synchronized (lock) {
            int size = 0;
            for (HashMap<K, V> bucket : buckets) {
                size += bucket.size();
            }
            return size;
        }
    }

    /** Stops the cleaner thread. */
    public void cleanup() {
        cleaner.interrupt();
    }

    /** Told of each expired entry. */
    public interface ExpiredCallback<K, V> {
        void expire(K key, V val);
    }
}

package org.apache.storm.windowing.persistence;

import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WindowPartitionCache} over a sorted map: when full, loading a new entry evicts
 * the entry with the largest key that is not pinned ({@link RemovalCause#REPLACED}), or
 * none when all are pinned (the cache then grows past its size). Pins are counted. Loads, pins and removals are serialized by one lock; reads of cached entries
 * are not.
 *
 * @param <K> the key type (comparable)
 * @param <V> the value type
 */
public class SimpleWindowPartitionCache<K, V> implements WindowPartitionCache<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(SimpleWindowPartitionCache.class);

    private final ConcurrentSkipListMap<K, V> map = new ConcurrentSkipListMap<>();
    private final Map<K, Long> pinned = new ConcurrentHashMap<>();
    private final long maximumSize;
    private final RemovalListener<K, V> removalListener;
    private final CacheLoader<K, V> cacheLoader;
    private final ReentrantLock lock = new ReentrantLock(true);
    private int size;

    private SimpleWindowPartitionCache(long maximumSize, RemovalListener<K, V> removalListener,
            CacheLoader<K, V> cacheLoader) {
        if (maximumSize <= 0) {
            throw new IllegalArgumentException("maximumSize must be greater than 0");
        }
        Objects.requireNonNull(cacheLoader, "cacheLoader cannot be null");
        this.maximumSize = maximumSize;
        this.removalListener = removalListener;
        this.cacheLoader = cacheLoader;
    }

    public static <K, V> SimpleWindowPartitionCacheBuilder<K, V> newBuilder() {
        return new SimpleWindowPartitionCacheBuilder<>();
    }

    @Override
    public V get(K key) {
        V val = map.get(key);
        if (val != null) {
            return val;
        }
        lock.lock();
        try {
            return load(key);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public V pinAndGet(K key) {
        lock.lock();
        try {
            V val = load(key);
            pinned.merge(key, 1L, Long::sum);
            LOG.debug("Pinned {}: {}", key, pinned);
            return val;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean unpin(K key) {
        lock.lock();
        try {
            Long pins = pinned.get(key);
            if (pins == null) {
                return false;
            }
            long left = pins - 1;
            if (left <= 0) {
                pinned.remove(key);
                return true;
            }
            pinned.put(key, left);
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ConcurrentMap<K, V> asMap() {
        return map;
    }

    @Override
    public void invalidate(K key) {
        lock.lock();
        try {
            if (isPinned(key)) {
                LOG.debug("{} is pinned: not invalidated", key);
                return;
            }
            V val = map.remove(key);
            if (val != null) {
                size--;
                pinned.remove(key);
                if (removalListener != null) {
                    removalListener.onRemoval(key, val, RemovalCause.EXPLICIT);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The cached value, or the loader's (cached, evicting one entry if full). Under the lock. */
    private V load(K key) {
        V val = map.get(key);
        if (val != null) {
            return val;
        }
        val = cacheLoader.load(key);
        if (val == null) {
            throw new NullPointerException("Null value for key " + key);
        }
        ensureCapacity();
        map.put(key, val);
        size++;
        return val;
    }

    private void ensureCapacity() {
        if (size < maximumSize) {
            return;
        }
        // The newest partitions go first: the oldest are the next a window evaluation reads.
        for (Iterator<Map.Entry<K, V>> it = map.descendingMap().entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<K, V> e = it.next();
            if (!isPinned(e.getKey())) {
                it.remove();
                size--;
                if (removalListener != null) {
                    removalListener.onRemoval(e.getKey(), e.getValue(), RemovalCause.REPLACED);
                }
                return;
            }
        }
    }

    private boolean isPinned(K key) {
        return pinned.getOrDefault(key, 0L) > 0;
    }

    /** Builds a {@link SimpleWindowPartitionCache}. */
    public static class SimpleWindowPartitionCacheBuilder<K, V> implements WindowPartitionCache.Builder<K, V> {
        private long maximumSize;
        private RemovalListener<K, V> removalListener;

        @Override
        public SimpleWindowPartitionCacheBuilder<K, V> maximumSize(long size) {
            this.maximumSize = size;
            return this;
        }

        @Override
        public SimpleWindowPartitionCacheBuilder<K, V> removalListener(RemovalListener<K, V> listener) {
            this.removalListener = listener;
            return this;
        }

        @Override
        public SimpleWindowPartitionCache<K, V> build(CacheLoader<K, V> loader) {
            return new SimpleWindowPartitionCache<>(maximumSize, removalListener, loader);
        }
    }
}

package org.apache.storm.windowing.persistence;

import java.util.concurrent.ConcurrentMap;

/**
 * A bounded cache of a persistent window's partitions, loading missing ones; pinned
 * entries are never evicted.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface WindowPartitionCache<K, V> {
    /** The value for {@code key}, loaded (and cached) if absent. */
    V get(K key);

    /** As {@link #get}, and pins the entry (once more) so that it stays cached. */
    V pinAndGet(K key);

    /**
     * Unpins the entry once.
     *
     * @return true if this released the last pin (false if it was not pinned)
     */
    boolean unpin(K key);

    /** The cached entries (a live view). */
    ConcurrentMap<K, V> asMap();

    /** Drops the entry, unless it is pinned, telling the removal listener ({@link RemovalCause#EXPLICIT}). */
    void invalidate(K key);

    /** Why an entry left the cache. */
    enum RemovalCause {
        /** {@link #invalidate} removed it. */
        EXPLICIT,
        /** It was evicted to make room for another. */
        REPLACED
    }

    /** Builds a cache. */
    interface Builder<K, V> {
        /** The most entries the cache holds (more than 0). */
        Builder<K, V> maximumSize(long size);

        /** Told of every entry that leaves the cache. */
        Builder<K, V> removalListener(RemovalListener<K, V> listener);

        /** The cache, loading missing entries with {@code loader}. */
        WindowPartitionCache<K, V> build(CacheLoader<K, V> loader);
    }

    /** Loads a value missing from the cache (never null). */
    interface CacheLoader<K, V> {
        V load(K key);
    }

    /** Told when an entry leaves the cache. */
    interface RemovalListener<K, V> {
        void onRemoval(K key, V val, RemovalCause removalCause);
    }
}

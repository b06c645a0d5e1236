package org.apache.storm.windowing.persistence;

import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.windowing.Event;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent window's events, as the window manager's queue: kept in partitions of up to
 * {@link #MAX_PARTITION_EVENTS} events in a key-value state (partition id to partition),
 * with the list of partition ids in another ({@code "pk"}) and the window manager's policy
 * state in a third. At most {@code maxEventsInMemory} events (at least
 * {@code MAX_PARTITION_EVENTS * MIN_PARTITIONS}) stay in memory, in a
 * {@link SimpleWindowPartitionCache}; evicted partitions are written back when modified.
 *
 * <p>Events are added to the latest partition, which stays pinned in the cache; iteration
 * goes through the partitions in id order, pinning the one it reads (the pins an iteration
 * leaves are dropped by {@link #clearIteratorPins}). {@link #prepareCommit} writes the
 * modified partitions, drops the empty ones (except the latest) and stores the policy
 * state; {@link #rollback} returns to the last commit.
 *
 * @param <T> the type of event
 */
public class WindowState<T> extends AbstractCollection<Event<T>> {
    public static final int MAX_PARTITION_EVENTS = 1000;
    public static final int MIN_PARTITIONS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(WindowState.class);
    private static final String PARTITION_IDS_KEY = "pk";

    private final KeyValueState<String, Deque<Long>> partitionIdsState;
    private final KeyValueState<Long, WindowPartition<T>> windowPartitionsState;
    private final KeyValueState<String, Optional<?>> windowSystemState;
    private final ReentrantLock partitionIdsLock = new ReentrantLock(true);
    private final WindowPartitionLock windowPartitionsLock = new WindowPartitionLock();
    private final long maxEventsInMemory;
    private final Supplier<Map<String, Optional<?>>> windowSystemStateSupplier;
    private final Set<Long> iteratorPins = new HashSet<>();
    private volatile Deque<Long> partitionIds;
    private volatile long latestPartitionId;
    private volatile WindowPartition<T> latestPartition;
    private volatile WindowPartitionCache<Long, WindowPartition<T>> cache;

    /**
     * @param windowPartitionsState partition id to partition
     * @param partitionIdsState holds the partition ids under {@code "pk"}
     * @param windowSystemState the window manager's policy state
     * @param windowSystemStateSupplier gives the policy state to store at each checkpoint
     * @param maxEventsInMemory about how many events stay in memory
     */
    public WindowState(KeyValueState<Long, WindowPartition<T>> windowPartitionsState,
            KeyValueState<String, Deque<Long>> partitionIdsState, KeyValueState<String, Optional<?>> windowSystemState,
            Supplier<Map<String, Optional<?>>> windowSystemStateSupplier, long maxEventsInMemory) {
        this.windowPartitionsState = windowPartitionsState;
        this.partitionIdsState = partitionIdsState;
        this.windowSystemState = windowSystemState;
        this.windowSystemStateSupplier = windowSystemStateSupplier;
        this.maxEventsInMemory = Math.max((long) MAX_PARTITION_EVENTS * MIN_PARTITIONS, maxEventsInMemory);
        init();
    }

    @Override
    public boolean add(Event<T> event) {
        if (latestPartition.size() >= MAX_PARTITION_EVENTS) {
            cache.unpin(latestPartition.getId());
            latestPartition = cache.pinAndGet(nextPartitionId());
        }
        latestPartition.add(event);
        return true;
    }

    @Override
    public Iterator<Event<T>> iterator() {
        return new Iterator<Event<T>>() {
            private final Iterator<Long> ids = partitionIdsSnapshot();
            private Iterator<Event<T>> current = Collections.emptyIterator();
            private Iterator<Event<T>> removeFrom;
            private WindowPartition<T> partition;

            @Override
            public boolean hasNext() {
                boolean more = current.hasNext();
                while (!more && ids.hasNext()) {
                    if (partition != null) {
                        unpin(partition.getId());
                    }
                    partition = cache.pinAndGet(ids.next());
                    if (partition != null) {
                        iteratorPins.add(partition.getId());
                        current = partition.iterator();
                        more = current.hasNext();
                    }
                }
                if (!more && partition != null) {
                    unpin(partition.getId());
                    partition = null;
                }
                return more;
            }

            @Override
            public Event<T> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                removeFrom = current;
                return current.next();
            }

            @Override
            public void remove() {
                if (removeFrom == null) {
                    throw new IllegalStateException("No calls to next() since last call to remove()");
                }
                removeFrom.remove();
                removeFrom = null;
            }

            private void unpin(long id) {
                cache.unpin(id);
                iteratorPins.remove(id);
            }
        };
    }

    private Iterator<Long> partitionIdsSnapshot() {
        partitionIdsLock.lock();
        try {
            return new ArrayList<>(partitionIds).iterator();
        } finally {
            partitionIdsLock.unlock();
        }
    }

    /** Drops the pins that iterations left (an iteration not run to its end). */
    public void clearIteratorPins() {
        for (Iterator<Long> it = iteratorPins.iterator(); it.hasNext(); ) {
            cache.unpin(it.next());
            it.remove();
        }
    }

    /** Not known without loading every partition. */
    @Override
    public int size() {
        throw new UnsupportedOperationException();
    }

    /** Writes the modified partitions and the policy state, then prepares the states. */
    public void prepareCommit(long txid) {
        flush();
        partitionIdsState.prepareCommit(txid);
        windowPartitionsState.prepareCommit(txid);
        windowSystemState.prepareCommit(txid);
    }

    public void commit(long txid) {
        partitionIdsState.commit(txid);
        windowPartitionsState.commit(txid);
        windowSystemState.commit(txid);
    }

    /**
     * Returns the states to their last commit.
     *
     * @param reInit whether to reload the partitions from them (false before the state was initialized)
     */
    public void rollback(boolean reInit) {
        partitionIdsState.rollback();
        windowPartitionsState.rollback();
        windowSystemState.rollback();
        if (reInit) {
            init();
        }
    }

    private void init() {
        initCache();
        initPartitions();
    }

    private void initPartitions() {
        partitionIds = partitionIdsState.get(PARTITION_IDS_KEY, new LinkedList<>());
        if (partitionIds.isEmpty()) {
            partitionIds.add(0L);
            partitionIdsState.put(PARTITION_IDS_KEY, partitionIds);
        }
        latestPartitionId = partitionIds.peekLast();
        latestPartition = cache.pinAndGet(latestPartitionId);
    }

    private void initCache() {
        long partitions = maxEventsInMemory / MAX_PARTITION_EVENTS;
        LOG.info("Persistent window: up to {} events in memory, {} partitions of {}", maxEventsInMemory,
                partitions, MAX_PARTITION_EVENTS);
        cache = SimpleWindowPartitionCache.<Long, WindowPartition<T>>newBuilder()
                .maximumSize(partitions)
                .removalListener(this::onEvicted)
                .build(this::loadPartition);
    }

    private WindowPartition<T> loadPartition(Long id) {
        windowPartitionsLock.lock(id);
        try {
            return windowPartitionsState.get(id, new WindowPartition<>(id));
        } finally {
            windowPartitionsLock.unlock(id);
        }
    }

    private void onEvicted(Long pid, WindowPartition<T> p, WindowPartitionCache.RemovalCause cause) {
        Objects.requireNonNull(pid, "Null partition id");
        Objects.requireNonNull(p, "Null window partition");
        windowPartitionsLock.lock(pid);
        try {
            if (p.isEmpty() && pid != latestPartitionId) {
                // An empty partition invalidated by flush is already deleted.
                if (cause != WindowPartitionCache.RemovalCause.EXPLICIT) {
                    deletePartition(pid);
                    windowPartitionsState.delete(pid);
                }
            } else if (p.isModified()) {
                windowPartitionsState.put(pid, p);
            }
        } finally {
            windowPartitionsLock.unlock(pid);
        }
    }

    private void deletePartition(long pid) {
        partitionIdsLock.lock();
        try {
            partitionIds.remove(pid);
            partitionIdsState.put(PARTITION_IDS_KEY, partitionIds);
        } finally {
            partitionIdsLock.unlock();
        }
    }

    private long nextPartitionId() {
        partitionIdsLock.lock();
        try {
            partitionIds.add(++latestPartitionId);
            partitionIdsState.put(PARTITION_IDS_KEY, partitionIds);
            return latestPartitionId;
        } finally {
            partitionIdsLock.unlock();
        }
    }

    private void flush() {
        for (Map.Entry<Long, WindowPartition<T>> e : cache.asMap().entrySet()) {
            long pid = e.getKey();
            WindowPartition<T> p = e.getValue();
            boolean invalidate = false;
            windowPartitionsLock.lock(pid);
            try {
                if (p.isEmpty() && pid != latestPartitionId) {
                    deletePartition(pid);
                    windowPartitionsState.delete(pid);
                    invalidate = true;
                } else if (p.isModified()) {
                    p.clearModified();
                    windowPartitionsState.put(pid, p);
                }
            } finally {
                windowPartitionsLock.unlock(pid);
            }
            if (invalidate) {
                cache.invalidate(pid);
            }
        }
        for (Map.Entry<String, Optional<?>> e : windowSystemStateSupplier.get().entrySet()) {
            windowSystemState.put(e.getKey(), e.getValue());
        }
    }

    /**
     * Up to {@link #MAX_PARTITION_EVENTS} events of a window, in arrival order; stored as a
     * value of the partitions' state.
     */
    public static class WindowPartition<T> implements Iterable<Event<T>> {
        private final ConcurrentLinkedQueue<Event<T>> events = new ConcurrentLinkedQueue<>();
        private final AtomicInteger size = new AtomicInteger();
        private final long id;
        private transient volatile boolean modified;

        public WindowPartition(long id) {
            this.id = id;
        }

        void add(Event<T> event) {
            events.add(event);
            size.incrementAndGet();
            setModified();
        }

        boolean isModified() {
            return modified;
        }

        void setModified() {
            modified = true;
        }

        void clearModified() {
            modified = false;
        }

        boolean isEmpty() {
            return events.isEmpty();
        }

        @Override
        public Iterator<Event<T>> iterator() {
            Iterator<Event<T>> it = events.iterator();
            return new Iterator<Event<T>>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public Event<T> next() {
                    return it.next();
                }

                @Override
                public void remove() {
                    it.remove();
                    size.decrementAndGet();
                    setModified();
                }
            };
        }

        public int size() {
            return size.get();
        }

        public long getId() {
            return id;
        }

        public Collection<Event<T>> getEvents() {
            return Collections.unmodifiableCollection(events);
        }

        @Override
        public String toString() {
            return "WindowPartition{id=" + id + ", size=" + size + "}";
        }
    }

    /** A fixed set of locks, one chosen per partition id. */
    private static final class WindowPartitionLock {
        private final ReentrantLock[] locks = new ReentrantLock[MIN_PARTITIONS];

        WindowPartitionLock() {
            for (int i = 0; i < locks.length; i++) {
                locks[i] = new ReentrantLock(true);
            }
        }

        void lock(long id) {
            locks[(int) Math.floorMod(id, (long) locks.length)].lock();
        }

        void unlock(long id) {
            locks[(int) Math.floorMod(id, (long) locks.length)].unlock();
        }
    }
}

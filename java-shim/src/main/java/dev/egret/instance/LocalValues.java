package dev.egret.instance;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Tuples passed by reference between the executors of one JVM: the JNI bridge's container,
 * which is Storm's worker (Storm hands a tuple to an executor of its own worker without
 * serializing it). The tuple still travels through the stream manager, which routes it, counts
 * it against backpressure and tracks its tree as any other; only its values stay here, and the
 * frame carries {@code TupleData.local_ref} instead of their bytes.
 *
 * <p>One {@link Ring} per (source task, destination task) pair, made on first use. The source
 * puts a copy's values under the next number of the pair (from 1), inside its sink's lock, so
 * the numbers go out in the order of the frames; the stream manager delivers one pair's tuples
 * in that order, so the destination takes them in increasing order. A number the destination
 * skips belongs to a tuple that was dropped on the way (an executor's queue lost with its
 * connection, a tuple for a task its instance does not host): its values are let go then, so
 * nothing the pair lost stays held. A pair holds at most {@link #RING_SLOTS} tuples in flight
 * by reference (Storm's executor queues are bounded by count too); when the slot of the next
 * number is still taken, the copy is serialized instead, and the destination reads its bytes
 * as usual. Memory is therefore bounded by the slots times the values' size.
 *
 * <p>Which tasks are here: every executor of this JVM registers its tasks ({@link #host});
 * only tuples to registered tasks are passed by reference. The registry lives as long as the
 * JVM (one topology's container); an executor restarted in it keeps its tasks, and takes the
 * values its earlier run had not taken yet.
 */
final class LocalValues {
    /** Tuples in flight by reference per (source, destination) pair; a power of two. */
    static final int RING_SLOTS = 1024;
    private static final int MASK = RING_SLOTS - 1;

    private static final ConcurrentHashMap<Long, Ring> RINGS = new ConcurrentHashMap<>();
    private static final Set<Integer> HOSTED = ConcurrentHashMap.newKeySet();
    private static volatile boolean inThisJvm;

    private LocalValues() {
    }

    /** This JVM hosts several executors of one container (the JNI bridge). */
    static void enableInThisJvm() {
        inThisJvm = true;
    }

    static boolean enabledInThisJvm() {
        return inThisJvm;
    }

    /** Tuples to these tasks may be passed by reference from now on. */
    static void host(Collection<Integer> tasks) {
        HOSTED.addAll(tasks);
    }

    static boolean hosts(int task) {
        return HOSTED.contains(task);
    }

    /** The ring of the pair, made on first use. */
    static Ring ring(int srcTask, int destTask) {
        return RINGS.computeIfAbsent(key(srcTask, destTask), k -> new Ring());
    }

    /** The ring of the pair, or null when nothing was ever passed by reference on it. */
    static Ring existingRing(int srcTask, int destTask) {
        return RINGS.get(key(srcTask, destTask));
    }

    private static long key(int srcTask, int destTask) {
        return ((long) srcTask << 32) | (destTask & 0xffffffffL);
    }

    /** A cache's ring at {@code task} (indexed by task id), or null. */
    static Ring at(Ring[] cache, int task) {
        return task >= 0 && task < cache.length ? cache[task] : null;
    }

    /** {@code cache} with {@code ring} at {@code task}, grown (a new array) when too short. */
    static Ring[] with(Ring[] cache, int task, Ring ring) {
        Ring[] out = task < cache.length ? cache : java.util.Arrays.copyOf(cache, Math.max(task + 1, cache.length * 2));
        out[task] = ring;
        return out;
    }

    /** Forgets every ring and task (tests: one JVM runs many executors' lifetimes). */
    static void resetForTests() {
        RINGS.clear();
        HOSTED.clear();
        inThisJvm = false;
    }

    /** The values in flight from one task to another. */
    static final class Ring {
        /**
         * Slot {@code i} holds the values of number {@code refs[i]} while {@code values[i]} is
         * not null. Two arrays rather than an object per slot: one tuple fills a slot. Only the
         * source fills a slot, and only an empty one, writing its number before its values;
         * only the destination's executor thread empties one, with a compare-and-set on its
         * values, so a number read beside non-null values is theirs.
         */
        private final AtomicReferenceArray<List<Object>> values = new AtomicReferenceArray<>(RING_SLOTS);
        private final AtomicLongArray refs = new AtomicLongArray(RING_SLOTS);
        /** The next number to give; only the source's sink lock holder moves it. */
        private final AtomicLong next = new AtomicLong(1);
        /** The last number taken; only the destination's executor thread moves it. */
        private volatile long taken;

        /**
         * Whether the next number's slot is free. Only the source fills slots (the destination
         * frees them), so for the source's emitting thread it stays true until its next
         * {@link #put}.
         */
        boolean hasRoom() {
            return values.get((int) (next.get() & MASK)) == null;
        }

        /**
         * Holds {@code list} under the pair's next number and returns it, or 0 when that
         * number's slot is still held (this many tuples are in flight): serialize then.
         * Called with the source's sink lock held, so numbers follow the frames' order.
         */
        long put(List<Object> list) {
            long ref = next.get();
            int i = (int) (ref & MASK);
            if (values.get(i) != null) {
                return 0;
            }
            refs.set(i, ref);
            values.set(i, list);
            next.set(ref + 1);
            return ref;
        }

        /**
         * The values held under {@code ref}, no longer held; null when they are not here (never
         * put in this JVM). Numbers skipped since the last one taken were dropped on the way:
         * their values are let go.
         */
        List<Object> take(long ref) {
            long last = taken;
            if (ref > last + 1) {
                // At most one lap of the ring: older numbers' slots were reused or freed.
                for (long r = Math.max(last + 1, ref - RING_SLOTS + 1); r < ref; r++) {
                    int i = (int) (r & MASK);
                    List<Object> held = values.get(i);
                    if (held != null && refs.get(i) == r) {
                        values.compareAndSet(i, held, null);
                    }
                }
            }
            int i = (int) (ref & MASK);
            List<Object> held = values.get(i);
            if (held == null || refs.get(i) != ref || !values.compareAndSet(i, held, null)) {
                return null;
            }
            if (ref > last) {
                taken = ref;
            }
            return held;
        }

        /** Values held now (for tests). */
        int held() {
            int n = 0;
            for (int i = 0; i < RING_SLOTS; i++) {
                if (values.get(i) != null) {
                    n++;
                }
            }
            return n;
        }
    }
}

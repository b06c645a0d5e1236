package dev.egret.instance;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * nothing the pair lost stays held.
 *
 * <p>What is held is bounded by count, as Storm's executor queues are: the pairs toward one
 * destination share {@link #DESTINATION_BUDGET} tuples (each pair at least
 * {@link #MIN_PAIR_CAP}, at most {@link Ring#MAX_IN_FLIGHT}), in arrays made as they fill and
 * let go as the destination passes them. A copy whose pair is at its cap is serialized instead,
 * and the destination reads its bytes as usual. Memory is therefore bounded by what is in
 * flight, and at most by the caps times the values' size.
 *
 * <p>Which tasks are here: every executor of this JVM registers its tasks ({@link #host});
 * only tuples to registered tasks are passed by reference. The registry lives as long as the
 * JVM (one topology's container); an executor restarted in it keeps its tasks, and takes the
 * values its earlier run had not taken yet.
 */
final class LocalValues {
    /**
     * Tuples held by reference toward one destination task, shared among the pairs leading to
     * it: the count Storm's executor receive queue holds by default
     * ({@code topology.executor.receive.buffer.size}).
     */
    static final int DESTINATION_BUDGET = 32_768;
    /** A pair's cap never goes under this, however many pairs share a destination. */
    static final int MIN_PAIR_CAP = 1_024;

    private static final ConcurrentHashMap<Long, Ring> RINGS = new ConcurrentHashMap<>();
    /** The rings toward each destination task; guarded by itself. */
    private static final Map<Integer, List<Ring>> RINGS_TO = new HashMap<>();
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

    /**
     * The ring of the pair, made on first use. Making one shares the destination's budget anew
     * among the rings toward it ({@link #pairCap}).
     */
    static Ring ring(int srcTask, int destTask) {
        long key = key(srcTask, destTask);
        Ring ring = RINGS.get(key);
        if (ring != null) {
            return ring;
        }
        synchronized (RINGS_TO) {
            ring = RINGS.get(key);
            if (ring == null) {
                ring = new Ring();
                List<Ring> toDest = RINGS_TO.computeIfAbsent(destTask, d -> new ArrayList<>());
                toDest.add(ring);
                int cap = pairCap(toDest.size());
                for (Ring each : toDest) {
                    each.cap = cap;
                }
                RINGS.put(key, ring);
            }
            return ring;
        }
    }

    /**
     * A pair's cap when {@code pairs} rings lead to its destination: the destination's budget
     * shared among them, at least the fixed ring's 1 024 of before and at most a ring's
     * {@link Ring#MAX_IN_FLIGHT}.
     */
    static int pairCap(int pairs) {
        return Math.max(MIN_PAIR_CAP, Math.min(Ring.MAX_IN_FLIGHT, DESTINATION_BUDGET / Math.max(1, pairs)));
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
        synchronized (RINGS_TO) {
            RINGS_TO.clear();
        }
        RINGS.clear();
        HOSTED.clear();
        inThisJvm = false;
    }

    /**
     * The values in flight from one task to another: a ring of {@link #SEGMENTS} segments of
     * {@link #SEGMENT_SLOTS} slots each, a segment made when the source first fills it and let go
     * when the destination has passed it, so a pair holds arrays for what is in flight only (one
     * segment at rest, {@code SEGMENTS} at most).
     *
     * <p>Number {@code n} lives in slot {@code n % SEGMENT_SLOTS} of segment {@code n /
     * SEGMENT_SLOTS}, at {@code (n / SEGMENT_SLOTS) % SEGMENTS} of the ring. The source puts a
     * number only while it is at most {@link #MAX_IN_FLIGHT} past the last one taken: one
     * segment short of a lap, so the segment it fills is never one the destination is still
     * taking from or letting go of, and each segment's slots are written once.
     */
    static final class Ring {
        private static final int SEGMENT_BITS = 8;
        static final int SEGMENT_SLOTS = 1 << SEGMENT_BITS;
        private static final int SLOT_MASK = SEGMENT_SLOTS - 1;
        /** Segments in the ring; a power of two. */
        static final int SEGMENTS = 64;
        private static final int SEGMENT_MASK = SEGMENTS - 1;
        /** Tuples in flight by reference per pair at most. */
        static final int MAX_IN_FLIGHT = (SEGMENTS - 1) * SEGMENT_SLOTS;

        private final AtomicReferenceArray<Segment> segments = new AtomicReferenceArray<>(SEGMENTS);
        /**
         * The last number given; only the source's sink lock holder moves it. Starts at the
         * default 0, so a ring handed between threads without a lock is seen as it began.
         */
        private volatile long given;
        /** The last number taken; only the destination's executor thread moves it. */
        private volatile long taken;
        /**
         * This pair's share of its destination's budget ({@link LocalValues#pairCap}), set when a
         * ring toward the destination is made; 0 (a ring made alone) is {@link #MAX_IN_FLIGHT}.
         */
        private volatile int cap;

        /**
         * Whether the next number may be put. Only the destination moves {@code taken}, and only
         * forward, so for the source's emitting thread it stays true until its next
         * {@link #put}, unless a new pair toward the destination lowers the cap meanwhile (the
         * put then refuses, and the copy is serialized).
         */
        boolean hasRoom() {
            return given - taken < cap();
        }

        /** Tuples this pair may hold in flight now. */
        int cap() {
            int c = cap;
            return c == 0 ? MAX_IN_FLIGHT : c;
        }

        /**
         * Holds {@code list} under the pair's next number and returns it, or 0 when the pair's
         * cap of tuples is in flight: serialize then. Called with the source's
         * sink lock held, so numbers follow the frames' order.
         */
        long put(List<Object> list) {
            long ref = given + 1;
            if (ref - taken > cap()) {
                return 0;
            }
            int at = (int) (ref >>> SEGMENT_BITS) & SEGMENT_MASK;
            Segment segment = segments.get(at);
            if (segment == null) {
                segment = new Segment();
                segments.set(at, segment);
            }
            segment.put((int) ref & SLOT_MASK, ref, list);
            given = ref;
            return ref;
        }

        /**
         * The values held under {@code ref}, no longer held; null when they are not here (never
         * put in this JVM). Numbers skipped since the last one taken were dropped on the way:
         * their values are let go, and the segments passed with them.
         */
        List<Object> take(long ref) {
            long last = taken;
            if (ref > last + 1) {
                // Skipped numbers in ref's own segment; the segments before it go whole below.
                long from = Math.max(last + 1, ref & ~(long) SLOT_MASK);
                Segment own = segments.get((int) (ref >>> SEGMENT_BITS) & SEGMENT_MASK);
                for (long r = from; own != null && r < ref; r++) {
                    own.take((int) r & SLOT_MASK, r);
                }
            }
            Segment segment = segments.get((int) (ref >>> SEGMENT_BITS) & SEGMENT_MASK);
            List<Object> held = segment == null ? null : segment.take((int) ref & SLOT_MASK, ref);
            if (held == null) {
                return null;
            }
            if (ref > last) {
                // Let go of every segment now wholly at or before ref, then publish ref: a
                // source that reads the new number sees those segments gone.
                long firstSegment = (last + 1) >>> SEGMENT_BITS;
                long pastSegment = (ref + 1) >>> SEGMENT_BITS;
                for (long g = Math.max(firstSegment, pastSegment - SEGMENTS); g < pastSegment; g++) {
                    segments.set((int) g & SEGMENT_MASK, null);
                }
                taken = ref;
            }
            return held;
        }

        /** Values held now (for tests). */
        int held() {
            int n = 0;
            for (int g = 0; g < SEGMENTS; g++) {
                Segment segment = segments.get(g);
                n += segment == null ? 0 : segment.held();
            }
            return n;
        }

        /** Segments allocated now (for tests). */
        int segmentsHeld() {
            int n = 0;
            for (int g = 0; g < SEGMENTS; g++) {
                n += segments.get(g) == null ? 0 : 1;
            }
            return n;
        }
    }

    /**
     * One segment's slots. Slot {@code i} holds the values of number {@code refs[i]} while
     * {@code values[i]} is not null. Two arrays rather than an object per slot: one tuple fills
     * a slot. Only the source fills a slot, once, writing its number before its values (whose
     * volatile write publishes the number); only the destination's executor thread empties one,
     * with a compare-and-set on its values, so a number read beside non-null values is theirs.
     */
    private static final class Segment {
        private final AtomicReferenceArray<List<Object>> values = new AtomicReferenceArray<>(Ring.SEGMENT_SLOTS);
        private final long[] refs = new long[Ring.SEGMENT_SLOTS];

        void put(int i, long ref, List<Object> list) {
            refs[i] = ref;
            values.set(i, list);
        }

        List<Object> take(int i, long ref) {
            List<Object> held = values.get(i);
            if (held == null || refs[i] != ref || !values.compareAndSet(i, held, null)) {
                return null;
            }
            return held;
        }

        int held() {
            int n = 0;
            for (int i = 0; i < Ring.SEGMENT_SLOTS; i++) {
                n += values.get(i) == null ? 0 : 1;
            }
            return n;
        }
    }
}

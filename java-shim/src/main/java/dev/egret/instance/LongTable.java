package dev.egret.instance;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A hash table from non-zero {@code long} keys to values, without boxing:
 * open addressing with linear probing over two parallel arrays, deletion by
 * backward shift (no tombstones), doubled when more than half full. A spout
 * task's pending trees live here: one entry per tree, looked up on every ack.
 *
 * <p>Invariants: key 0 marks an empty slot, so it cannot be stored (and is
 * never found: a zero key from the wire finds nothing); the
 * capacity is a power of two, at least twice the size; every key sits at or
 * after its home slot with no empty slot between (the probe run). Not
 * thread-safe: the owner synchronizes.
 */
final class LongTable<V> {
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private Object[] values;
    private int size;
    private int mask;
    /**
     * No entry sits further than this from its home slot (an upper bound: set by inserts,
     * reset by {@link #grow()}); so a deletion's backward shift stops this far past its hole,
     * instead of running to the end of a long run of consecutive keys.
     */
    private int maxDisplacement;

    LongTable() {
        this(MIN_CAPACITY);
    }

    LongTable(int expected) {
        int capacity = MIN_CAPACITY;
        while (capacity < expected * 2) {
            capacity <<= 1;
        }
        keys = new long[capacity];
        values = new Object[capacity];
        mask = capacity - 1;
    }

    /**
     * The home slot of {@code key}: its low bits, folded with its high ones. A spout task's
     * tree keys are consecutive numbers from a random start ({@link SpoutCollector}), so the
     * trees pending at one time sit in neighbouring slots (a cache line holds eight keys)
     * without colliding, and a tree's ack finds its slot near the last ones touched; random
     * keys spread by their low bits, and keys differing only in their high 32 bits by the fold.
     */
    private int home(long key) {
        return (int) (key ^ (key >>> 32)) & mask;
    }

    private static void checkKey(long key) {
        if (key == 0) {
            throw new IllegalArgumentException("LongTable keys must be non-zero");
        }
    }

    int size() {
        return size;
    }

    /** The bound on any entry's distance from its home slot (for tests). */
    int maxDisplacement() {
        return maxDisplacement;
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        if (key == 0) {
            return null;
        }
        for (int i = home(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return (V) values[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    /** Stores {@code value} unless {@code key} is present; returns the present value, or null when stored. */
    @SuppressWarnings("unchecked")
    V putIfAbsent(long key, V value) {
        checkKey(key);
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        for (int i = home(key), d = 0; ; i = (i + 1) & mask, d++) {
            long k = keys[i];
            if (k == key) {
                return (V) values[i];
            }
            if (k == 0) {
                keys[i] = key;
                values[i] = value;
                size++;
                if (d > maxDisplacement) {
                    maxDisplacement = d;
                }
                return null;
            }
        }
    }

    /** Removes {@code key}; returns its value, or null when absent. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        if (key == 0) {
            return null;
        }
        for (int i = home(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == 0) {
                return null;
            }
            if (k == key) {
                V old = (V) values[i];
                deleteAt(i);
                return old;
            }
        }
    }

    /** Empties slot {@code hole}, moving back the later entries of its probe run that may fill it. */
    private void deleteAt(int hole) {
        size--;
        for (int j = (hole + 1) & mask, past = 1; ; j = (j + 1) & mask, past++) {
            long k = keys[j];
            // An entry more than maxDisplacement past the hole has its home after the hole,
            // and so has every one after it: none of them can move.
            if (k == 0 || past > maxDisplacement) {
                break;
            }
            int h = home(k);
            // Entry j may move to the hole when its home is not in (hole, j] (cyclically).
            boolean stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!stays) {
                keys[hole] = k;
                values[hole] = values[j];
                hole = j;
                past = 0;
            }
        }
        keys[hole] = 0;
        values[hole] = null;
    }

    /** Removes and returns every value (in table order). */
    @SuppressWarnings("unchecked")
    List<V> removeAll() {
        List<V> all = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                all.add((V) values[i]);
                keys[i] = 0;
                values[i] = null;
            }
        }
        size = 0;
        return all;
    }

    /** Removes and returns the values {@code test} accepts (in table order). */
    @SuppressWarnings("unchecked")
    List<V> removeIf(Predicate<? super V> test) {
        List<Long> matched = null;
        List<V> out = null;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0 && test.test((V) values[i])) {
                if (matched == null) {
                    matched = new ArrayList<>();
                    out = new ArrayList<>();
                }
                matched.add(keys[i]);
                out.add((V) values[i]);
            }
        }
        if (matched == null) {
            return List.of();
        }
        // Removed after the scan: a backward shift during it could skip or revisit entries.
        for (long key : matched) {
            remove(key);
        }
        return out;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldKeys.length * 2];
        mask = keys.length - 1;
        maxDisplacement = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            long k = oldKeys[i];
            if (k != 0) {
                int j = home(k);
                int d = 0;
                while (keys[j] != 0) {
                    j = (j + 1) & mask;
                    d++;
                }
                keys[j] = k;
                values[j] = oldValues[i];
                if (d > maxDisplacement) {
                    maxDisplacement = d;
                }
            }
        }
    }
}

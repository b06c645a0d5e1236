package dev.egret.metrics;

import dev.egret.proto.TaskStatsDelta;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Storm's built-in statistics of one task, counted exactly (Storm samples them).
 *
 * <p>Keys: {@code emitted}/{@code transferred} by output stream; spouts' {@code acked}/
 * {@code failed} by the stream of the root tuple, with the complete latency summed on
 * {@code acked}; bolts' {@code acked}/{@code failed}/{@code executed} by input
 * {@code "<component>:<stream>"}, with the process latency summed on {@code acked} and
 * the execute latency on {@code executed}.
 *
 * <p>Invariants: counters only grow (cumulative since the task started); readers take
 * deltas through their own {@link Cursor}, so several readers (the metrics bucket, the
 * stats report) never disturb each other. Thread-safety: updates may come from any thread
 * (emits and acks from user threads); a cursor is used by one thread at a time. A count
 * and its latency sum are two atomics (see {@link Cursor#next} for the read order); sums
 * over consecutive deltas are exact.
 */
public final class TaskStats {
    /** What is counted. */
    public enum Kind { EMITTED, TRANSFERRED, ACKED, FAILED, EXECUTED }

    /** One key's cumulative count and latency sum (nanoseconds). */
    static final class Cell {
        final AtomicLong count = new AtomicLong();
        final AtomicLong nanos = new AtomicLong();
    }

    private final EnumMap<Kind, ConcurrentHashMap<String, Cell>> cells = new EnumMap<>(Kind.class);
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, String>> inputKeys = new ConcurrentHashMap<>();

    public TaskStats() {
        for (Kind k : Kind.values()) {
            cells.put(k, new ConcurrentHashMap<>());
        }
    }

    /** A key and its cell, immutable: what {@link #last} remembers per kind. */
    private static final class Keyed {
        final String key;
        final Cell cell;

        Keyed(String key, Cell cell) {
            this.key = key;
            this.cell = cell;
        }
    }

    /**
     * Per kind (by ordinal), the key looked up last and its cell: a task mostly counts on
     * one stream (or input), so most updates find their cell here by the key's identity,
     * without a map lookup. Racy on purpose: a {@link Keyed} is immutable (final fields), so
     * a thread sees a whole one or an older one, and any of them names a right cell.
     */
    private final Keyed[] last = new Keyed[Kind.values().length];

    private Cell cell(Kind kind, String key) {
        Keyed k = last[kind.ordinal()];
        if (k != null && k.key == key) {
            return k.cell;
        }
        ConcurrentHashMap<String, Cell> m = cells.get(kind);
        Cell c = m.get(key);
        if (c == null) {
            c = m.computeIfAbsent(key, x -> new Cell());
        }
        last[kind.ordinal()] = new Keyed(key, c);
        return c;
    }

    /** An input's component and stream and their key, immutable: what {@link #lastInput} remembers. */
    private static final class InputKey {
        final String component;
        final String stream;
        final String key;

        InputKey(String component, String stream, String key) {
            this.component = component;
            this.stream = stream;
            this.key = key;
        }
    }

    /**
     * The input looked up last: a bolt's tuples mostly come from one input, whose component
     * and stream are the same string objects tuple after tuple, so most lookups end here
     * without a map lookup. Racy on purpose, as {@link #last}.
     */
    private InputKey lastInput;

    /** Storm's key for a bolt's input: {@code "<component>:<stream>"} (cached, no allocation per tuple). */
    public String inputKey(String component, String stream) {
        InputKey last = lastInput;
        if (last != null && last.component == component && last.stream == stream) {
            return last.key;
        }
        ConcurrentHashMap<String, String> byStream = inputKeys.get(component);
        if (byStream == null) {
            byStream = inputKeys.computeIfAbsent(component, k -> new ConcurrentHashMap<>());
        }
        String key = byStream.get(stream);
        if (key == null) {
            key = byStream.computeIfAbsent(stream, s -> component + ":" + s);
        }
        lastInput = new InputKey(component, stream, key);
        return key;
    }

    /** One emit on {@code stream} that went to {@code targets} tasks. */
    public void emitted(String stream, int targets) {
        cell(Kind.EMITTED, stream).count.incrementAndGet();
        cell(Kind.TRANSFERRED, stream).count.addAndGet(targets);
    }

    /** A spout tree completed: {@code stream} of its root tuple, emit to ack callback. */
    public void spoutAcked(String stream, long completeNanos) {
        Cell c = cell(Kind.ACKED, stream);
        c.nanos.addAndGet(Math.max(0, completeNanos));
        c.count.incrementAndGet();
    }

    public void spoutFailed(String stream) {
        cell(Kind.FAILED, stream).count.incrementAndGet();
    }

    /** A bolt acked a tuple of {@code inputKey}, {@code processNanos} after its execute started. */
    public void boltAcked(String inputKey, long processNanos) {
        Cell c = cell(Kind.ACKED, inputKey);
        c.nanos.addAndGet(Math.max(0, processNanos));
        c.count.incrementAndGet();
    }

    public void boltFailed(String inputKey) {
        cell(Kind.FAILED, inputKey).count.incrementAndGet();
    }

    /** A bolt's execute of a tuple of {@code inputKey} returned after {@code executeNanos}. */
    public void boltExecuted(String inputKey, long executeNanos) {
        Cell c = cell(Kind.EXECUTED, inputKey);
        c.nanos.addAndGet(Math.max(0, executeNanos));
        c.count.incrementAndGet();
    }

    /** A new reader starting from now (what was counted before is not in its first delta). */
    public Cursor cursor() {
        Cursor c = new Cursor();
        c.next();
        return c;
    }

    /** A reader's position: each {@link #next} returns what was counted since the previous one. */
    public final class Cursor {
        private final EnumMap<Kind, Map<String, long[]>> last = new EnumMap<>(Kind.class);

        private Cursor() {
            for (Kind k : Kind.values()) {
                last.put(k, new HashMap<>());
            }
        }

        public Delta next() {
            Delta d = new Delta();
            for (Kind k : Kind.values()) {
                Map<String, long[]> seen = last.get(k);
                Map<String, long[]> out = d.values.get(k);
                for (Map.Entry<String, Cell> e : cells.get(k).entrySet()) {
                    // Updates add the latency before the count, so reading the count first
                    // never yields a counted tuple without its latency; a latency may come
                    // one delta before its count, and the next delta makes up for it.
                    long count = e.getValue().count.get();
                    long nanos = e.getValue().nanos.get();
                    long[] prev = seen.get(e.getKey());
                    if (prev == null) {
                        prev = new long[2];
                        seen.put(e.getKey(), prev);
                    }
                    out.put(e.getKey(), new long[] {count - prev[0], nanos - prev[1]});
                    prev[0] = count;
                    prev[1] = nanos;
                }
            }
            return d;
        }
    }

    /**
     * Counts (and latency sums) per key since the previous read of one cursor. Keys seen
     * before stay present with 0, like Storm's multi-count metrics.
     */
    public static final class Delta {
        final EnumMap<Kind, Map<String, long[]>> values = new EnumMap<>(Kind.class);

        Delta() {
            for (Kind k : Kind.values()) {
                values.put(k, new HashMap<>());
            }
        }

        /** Counts of a kind by key, zeros included. */
        public Map<String, Long> counts(Kind kind) {
            Map<String, Long> m = new HashMap<>();
            values.get(kind).forEach((k, v) -> m.put(k, v[0]));
            return m;
        }

        /** Mean latency (ms) of a kind by key, only for keys counted in this delta. */
        public Map<String, Double> meanMillis(Kind kind) {
            Map<String, Double> m = new HashMap<>();
            values.get(kind).forEach((k, v) -> {
                if (v[0] > 0) {
                    m.put(k, v[1] / 1e6 / v[0]);
                }
            });
            return m;
        }

        public boolean isEmpty() {
            for (Map<String, long[]> m : values.values()) {
                for (long[] v : m.values()) {
                    if (v[0] != 0 || v[1] != 0) {
                        return false;
                    }
                }
            }
            return true;
        }

        /** The wire form for the stream manager; only non-zero entries are written. */
        public TaskStatsDelta toProto(int taskId, boolean spout) {
            TaskStatsDelta.Builder b = TaskStatsDelta.newBuilder().setTaskId(taskId);
            values.get(Kind.EMITTED).forEach((k, v) -> {
                if (v[0] != 0) {
                    b.putEmitted(k, v[0]);
                }
            });
            values.get(Kind.TRANSFERRED).forEach((k, v) -> {
                if (v[0] != 0) {
                    b.putTransferred(k, v[0]);
                }
            });
            values.get(Kind.ACKED).forEach((k, v) -> {
                if (v[0] != 0) {
                    b.putAcked(k, v[0]);
                }
                if (v[1] != 0) {
                    if (spout) {
                        b.putCompleteMsSum(k, v[1] / 1e6);
                    } else {
                        b.putProcessMsSum(k, v[1] / 1e6);
                    }
                }
            });
            values.get(Kind.FAILED).forEach((k, v) -> {
                if (v[0] != 0) {
                    b.putFailed(k, v[0]);
                }
            });
            values.get(Kind.EXECUTED).forEach((k, v) -> {
                if (v[0] != 0) {
                    b.putExecuted(k, v[0]);
                }
                if (v[1] != 0) {
                    b.putExecuteMsSum(k, v[1] / 1e6);
                }
            });
            return b.build();
        }
    }
}

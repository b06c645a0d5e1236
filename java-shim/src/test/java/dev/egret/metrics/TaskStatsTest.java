package dev.egret.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskStatsTest {
    @Test
    void alternatingAndEqualButDistinctKeysCountExactly() {
        TaskStats stats = new TaskStats();
        TaskStats.Cursor cursor = stats.cursor();
        String a = "default";
        String b = new String("other");
        for (int i = 0; i < 1000; i++) {
            stats.emitted(a, 2);
            stats.emitted(i % 3 == 0 ? new String("other") : b, 1);
            stats.spoutAcked(new String("default"), 1_000_000);
        }
        TaskStats.Delta d = cursor.next();
        assertEquals(Map.of("default", 1000L, "other", 1000L), d.counts(TaskStats.Kind.EMITTED));
        assertEquals(Map.of("default", 2000L, "other", 1000L), d.counts(TaskStats.Kind.TRANSFERRED));
        assertEquals(Map.of("default", 1000L), d.counts(TaskStats.Kind.ACKED));
        assertEquals(1.0, d.meanMillis(TaskStats.Kind.ACKED).get("default"), 1e-9);
    }

    @Test
    void inputKeysOfAlternatingAndEqualButDistinctInputsAreRightAndShared() {
        TaskStats stats = new TaskStats();
        String spout = "spout";
        String stream = "default";
        String first = stats.inputKey(spout, stream);
        assertEquals("spout:default", first);
        for (int i = 0; i < 100; i++) {
            assertSame(first, stats.inputKey(spout, stream));
            assertEquals("spout:other", stats.inputKey(spout, i % 2 == 0 ? "other" : new String("other")));
            assertEquals("bolt:default", stats.inputKey(new String("bolt"), stream));
            // Equal strings that are other objects find the same key.
            assertSame(first, stats.inputKey(new String("spout"), new String("default")));
        }
    }

    @Test
    void updatesFromSeveralThreadsOnSeveralKeysAllCount() throws Exception {
        TaskStats stats = new TaskStats();
        TaskStats.Cursor cursor = stats.cursor();
        String[] keys = {"s0", "s1", "s2"};
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int offset = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 30_000; i++) {
                    stats.boltExecuted(keys[(i + offset) % keys.length], 10);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(Map.of("s0", 40_000L, "s1", 40_000L, "s2", 40_000L),
                cursor.next().counts(TaskStats.Kind.EXECUTED));
    }
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongTableTest {
    @Test
    void behavesAsAHashMapUnderRandomOperations() {
        // Keys from a small range collide and share probe runs: every deletion shifts.
        Random random = new Random(42);
        LongTable<String> table = new LongTable<>();
        Map<Long, String> model = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            long key = 1 + random.nextInt(5000);
            switch (random.nextInt(3)) {
                case 0 -> assertEquals(model.putIfAbsent(key, "v" + step), table.putIfAbsent(key, "v" + step));
                case 1 -> assertEquals(model.remove(key), table.remove(key));
                default -> assertEquals(model.get(key), table.get(key));
            }
            assertEquals(model.size(), table.size());
        }
        for (Map.Entry<Long, String> e : model.entrySet()) {
            assertEquals(e.getValue(), table.get(e.getKey()));
        }
    }

    @Test
    void growsAndKeepsEveryEntryWithRandomKeys() {
        Random random = new Random(7);
        LongTable<Long> table = new LongTable<>();
        Map<Long, Long> model = new HashMap<>();
        for (int i = 0; i < 100_000; i++) {
            long key = random.nextLong();
            if (key == 0) {
                continue;
            }
            model.put(key, (long) i);
            assertNull(table.putIfAbsent(key, (long) i));
        }
        assertEquals(model.size(), table.size());
        model.forEach((k, v) -> assertEquals(v, table.get(k)));
    }

    @Test
    void removeIfAndRemoveAllReturnWhatTheyRemove() {
        LongTable<Integer> table = new LongTable<>();
        for (int i = 1; i <= 1000; i++) {
            table.putIfAbsent(i * 7919L, i);
        }
        List<Integer> even = table.removeIf(v -> v % 2 == 0);
        assertEquals(500, even.size());
        assertEquals(500, table.size());
        for (int i = 1; i <= 1000; i++) {
            assertEquals(i % 2 == 0 ? null : Integer.valueOf(i), table.get(i * 7919L));
        }
        assertEquals(List.of(), table.removeIf(v -> v > 5000));
        List<Integer> rest = table.removeAll();
        assertEquals(500, rest.size());
        assertEquals(0, table.size());
        assertNull(table.get(7919L));
        assertThrows(IllegalArgumentException.class, () -> table.putIfAbsent(0, 1));
        assertNull(table.get(0));
        assertNull(table.remove(0));
    }

    @Test
    void consecutiveKeysFromARandomStartNeverCollideAndLeaveInAnyOrder() {
        Random random = new Random(99);
        long start = random.nextLong() | (1L << 62);
        LongTable<Long> table = new LongTable<>();
        Map<Long, Long> model = new HashMap<>();
        long next = start;
        // A sliding window of pending trees: new keys in order, acks in a shuffled order.
        for (int step = 0; step < 300_000; step++) {
            if (random.nextInt(10) < 6 || model.isEmpty()) {
                long key = next++;
                model.put(key, key);
                assertNull(table.putIfAbsent(key, key));
            } else {
                long key = next - 1 - random.nextInt((int) Math.min(2000, next - start));
                assertEquals(model.remove(key), table.remove(key));
            }
        }
        assertEquals(model.size(), table.size());
        model.forEach((k, v) -> assertEquals(v, table.get(k)));
        assertEquals(0, table.maxDisplacement(), "consecutive keys each sit in their own home slot");
    }

    @Test
    void keysDifferingOnlyInHighBitsStillSpread() {
        LongTable<Integer> table = new LongTable<>();
        for (int i = 1; i <= 4096; i++) {
            assertNull(table.putIfAbsent((long) i << 32, i));
        }
        for (int i = 1; i <= 4096; i++) {
            assertEquals(i, table.get((long) i << 32));
        }
        assertEquals(0, table.maxDisplacement());
    }
}

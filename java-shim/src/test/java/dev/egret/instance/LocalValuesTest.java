package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class LocalValuesTest {
    @Test
    void numbersFollowThePutsAndEachIsTakenOnce() {
        LocalValues.Ring ring = new LocalValues.Ring();
        List<Object> a = List.of("a");
        List<Object> b = List.of("b");
        assertEquals(1, ring.put(a));
        assertEquals(2, ring.put(b));
        assertSame(a, ring.take(1));
        assertNull(ring.take(1), "taken already");
        assertSame(b, ring.take(2));
        assertNull(ring.take(3), "never put");
        assertEquals(0, ring.held());
    }

    @Test
    void aFullRingRefusesUntilItsOldestIsTaken() {
        LocalValues.Ring ring = new LocalValues.Ring();
        for (int i = 1; i <= LocalValues.RING_SLOTS; i++) {
            assertEquals(i, ring.put(List.of(i)));
        }
        assertEquals(0, ring.put(List.of("more")), "every slot held: serialize instead");
        assertEquals(0, ring.put(List.of("more")), "a refusal uses no number");
        assertEquals(List.of(1), ring.take(1));
        assertEquals(LocalValues.RING_SLOTS + 1, ring.put(List.of("more")));
        assertEquals(LocalValues.RING_SLOTS, ring.held());
    }

    @Test
    void numbersSkippedByTheDestinationAreLetGo() {
        LocalValues.Ring ring = new LocalValues.Ring();
        for (int i = 1; i <= 5; i++) {
            ring.put(List.of(i));
        }
        assertEquals(List.of(1), ring.take(1));
        // 2 and 3 were dropped on the way.
        assertEquals(List.of(4), ring.take(4));
        assertEquals(1, ring.held(), "only 5 is still held");
        assertNull(ring.take(2));
        assertEquals(List.of(5), ring.take(5));
        assertEquals(0, ring.held());
    }

    @Test
    void aLapOfSkippedNumbersFreesEverySlotTheyHeld() {
        LocalValues.Ring ring = new LocalValues.Ring();
        int n = LocalValues.RING_SLOTS;
        for (int i = 1; i <= n; i++) {
            ring.put(List.of(i));
        }
        assertEquals(List.of(n), ring.take(n));
        assertEquals(0, ring.held());
        assertEquals(n + 1, ring.put(List.of("next lap")));
    }

    @Test
    void pairsHaveTheirOwnRingsAndTasksAreHostedOnceRegistered() {
        LocalValues.resetForTests();
        try {
            assertNull(LocalValues.existingRing(1, 2));
            LocalValues.Ring r = LocalValues.ring(1, 2);
            assertSame(r, LocalValues.ring(1, 2));
            assertSame(r, LocalValues.existingRing(1, 2));
            assertNull(LocalValues.existingRing(2, 1));
            assertEquals(false, LocalValues.hosts(7));
            LocalValues.host(List.of(7, 8));
            assertEquals(true, LocalValues.hosts(7));
        } finally {
            LocalValues.resetForTests();
        }
    }
}

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
        int max = LocalValues.Ring.MAX_IN_FLIGHT;
        for (int i = 1; i <= max; i++) {
            assertEquals(i, ring.put(List.of(i)));
        }
        assertEquals(false, ring.hasRoom());
        assertEquals(0, ring.put(List.of("more")), "the most in flight: serialize instead");
        assertEquals(0, ring.put(List.of("more")), "a refusal uses no number");
        assertEquals(List.of(1), ring.take(1));
        assertEquals(true, ring.hasRoom());
        assertEquals(max + 1, ring.put(List.of("more")));
        assertEquals(max, ring.held());
    }

    @Test
    void segmentsAreMadeAsTheRingFillsAndLetGoAsTheDestinationPassesThem() {
        LocalValues.Ring ring = new LocalValues.Ring();
        int slots = LocalValues.Ring.SEGMENT_SLOTS;
        assertEquals(0, ring.segmentsHeld(), "nothing made before the first put");
        ring.put(List.of(1));
        assertEquals(1, ring.segmentsHeld());
        for (int i = 2; i <= 3 * slots; i++) {
            ring.put(List.of(i));
        }
        assertEquals(4, ring.segmentsHeld(), "numbers 1 to 3 x slots span four segments (0 is unused)");
        for (int i = 1; i < slots; i++) {
            assertEquals(List.of(i), ring.take(i));
        }
        assertEquals(3, ring.segmentsHeld(), "the first segment is let go once its last number is taken");
        assertEquals(List.of(2 * slots + 5), ring.take(2 * slots + 5));
        assertEquals(2, ring.segmentsHeld(), "a segment of skipped numbers goes whole");
        assertEquals(slots - 5, ring.held(), "only the numbers after the last taken are held");
    }

    @Test
    void lapAfterLapEachNumberIsTakenOnceAndMemoryFollowsWhatIsInFlight() {
        LocalValues.Ring ring = new LocalValues.Ring();
        int max = LocalValues.Ring.MAX_IN_FLIGHT;
        long put = 0;
        long taken = 0;
        // Twenty fillings (over ten laps of the ring), each drained, taking every 7th number only
        // (the others dropped on the way).
        for (int round = 0; round < 20; round++) {
            while (ring.hasRoom()) {
                put = ring.put(List.of(put + 1));
                assertEquals(true, put > 0);
            }
            assertEquals(max, put - taken, "full at the bound, round " + round);
            long last = taken;
            for (long r = taken + 7; r <= put; r += 7) {
                assertEquals(List.of(r), ring.take(r));
                last = r;
            }
            if (last != put) {
                assertEquals(List.of(put), ring.take(put));
            }
            assertNull(ring.take(put), "taken once");
            taken = put;
            assertEquals(0, ring.held(), "round " + round);
            assertEquals(true, ring.segmentsHeld() <= 1, "round " + round);
        }
        assertEquals(true, put > 10L * LocalValues.Ring.SEGMENTS * LocalValues.Ring.SEGMENT_SLOTS);
    }

    @Test
    void aSourceAndADestinationThreadAgreeOnEveryNumber() throws Exception {
        LocalValues.Ring ring = new LocalValues.Ring();
        int count = 1_000_000;
        // The frames between them: bounded, in order, as the stream manager keeps one pair's.
        java.util.concurrent.ArrayBlockingQueue<Long> frames = new java.util.concurrent.ArrayBlockingQueue<>(4096);
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread source = new Thread(() -> {
            try {
                for (long v = 1; v <= count; v++) {
                    long ref;
                    while ((ref = ring.put(List.of(v))) == 0) {
                        Thread.onSpinWait();
                    }
                    assertEquals(v, ref);
                    frames.put(ref);
                }
                frames.put(-1L);
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        source.start();
        long lastTaken = 0;
        long taken = 0;
        for (long ref = frames.take(); ref != -1; ref = frames.take()) {
            if (ref % 13 == 0) {
                continue; // dropped on the way
            }
            assertEquals(List.of(ref), ring.take(ref));
            lastTaken = ref;
            taken++;
        }
        source.join();
        assertNull(failed.get());
        assertEquals(count - count / 13, taken);
        assertEquals(count - lastTaken, ring.held(), "only the numbers after the last taken are held");
    }

    @Test
    void aLapOfSkippedNumbersFreesEverySlotTheyHeld() {
        LocalValues.Ring ring = new LocalValues.Ring();
        int n = LocalValues.Ring.MAX_IN_FLIGHT;
        for (int i = 1; i <= n; i++) {
            ring.put(List.of(i));
        }
        assertEquals(List.of(n), ring.take(n));
        assertEquals(0, ring.held());
        assertEquals(n + 1, ring.put(List.of("next lap")));
    }

    @Test
    void thePairsTowardOneDestinationShareItsBudget() {
        LocalValues.resetForTests();
        try {
            LocalValues.Ring first = LocalValues.ring(1, 9);
            assertEquals(LocalValues.Ring.MAX_IN_FLIGHT, first.cap(), "one pair: a whole ring");
            LocalValues.ring(2, 9);
            assertEquals(LocalValues.Ring.MAX_IN_FLIGHT, first.cap(), "two pairs: the budget covers both");
            LocalValues.ring(3, 9);
            LocalValues.Ring fourth = LocalValues.ring(4, 9);
            assertEquals(LocalValues.DESTINATION_BUDGET / 4, first.cap());
            assertEquals(LocalValues.DESTINATION_BUDGET / 4, fourth.cap());
            assertSame(fourth, LocalValues.ring(4, 9), "an existing pair shares nothing anew");
            assertEquals(LocalValues.DESTINATION_BUDGET / 4, first.cap());
            LocalValues.Ring elsewhere = LocalValues.ring(1, 8);
            assertEquals(LocalValues.Ring.MAX_IN_FLIGHT, elsewhere.cap(), "another destination has its own");
            for (int src = 5; src <= 100; src++) {
                LocalValues.ring(src, 9);
            }
            assertEquals(LocalValues.MIN_PAIR_CAP, first.cap(), "never under the floor");

            // A pair at its cap refuses, and takes again once the destination has taken.
            LocalValues.Ring ring = LocalValues.ring(1, 7);
            for (int src = 2; src <= 4; src++) {
                LocalValues.ring(src, 7);
            }
            int cap = ring.cap();
            for (int i = 1; i <= cap; i++) {
                assertEquals(i, ring.put(List.of(i)));
            }
            assertEquals(false, ring.hasRoom());
            assertEquals(0, ring.put(List.of("more")));
            assertEquals(List.of(1), ring.take(1));
            assertEquals(cap + 1, ring.put(List.of("more")));
        } finally {
            LocalValues.resetForTests();
        }
    }

    @Test
    void aCapLoweredUnderWhatIsInFlightRefusesUntilTheDestinationCatchesUp() {
        LocalValues.resetForTests();
        try {
            LocalValues.Ring ring = LocalValues.ring(1, 9);
            for (int i = 1; i <= 10_000; i++) {
                ring.put(List.of(i));
            }
            for (int src = 2; src <= 4; src++) {
                LocalValues.ring(src, 9);
            }
            assertEquals(8_192, ring.cap());
            assertEquals(0, ring.put(List.of("over")));
            assertEquals(List.of(1_808), ring.take(1_808), "the ones before it were dropped on the way");
            assertEquals(false, ring.hasRoom(), "8 192 still in flight");
            assertEquals(List.of(1_809), ring.take(1_809));
            assertEquals(10_001, ring.put(List.of("in")));
            assertEquals(8_192, ring.held());
        } finally {
            LocalValues.resetForTests();
        }
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

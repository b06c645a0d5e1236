package org.apache.storm.windowing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventWindowManagerTest {
    /** Records activations as "window|new|expired|end" and expiries in order. */
    static final class Recorder implements WindowLifecycleListener<Integer> {
        final List<String> activations = new ArrayList<>();
        final List<Integer> expired = new ArrayList<>();

        @Override
        public void onExpiry(List<Integer> events) {
            expired.addAll(events);
        }

        @Override
        public void onActivation(List<Integer> events, List<Integer> newEvents, List<Integer> expiredEvents,
                Long referenceTime) {
            activations.add(events + "|" + newEvents + "|" + expiredEvents + "|" + referenceTime);
        }
    }

    @Test
    void countWindowSlidesEveryCountAndExpiresTheOldest() {
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(3, null, 2, null, false, r);
        for (int i = 1; i <= 6; i++) {
            m.add(i, 100 + i);
        }
        assertEquals(List.of("[1, 2]|[1, 2]|[]|102", "[2, 3, 4]|[3, 4]|[1]|104", "[4, 5, 6]|[5, 6]|[2, 3]|106"),
                r.activations);
        assertEquals(List.of(1, 2, 3), r.expired);
    }

    @Test
    void tumblingCountWindowsDoNotOverlap() {
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(3, null, 3, null, false, r);
        for (int i = 1; i <= 7; i++) {
            m.add(i, i);
        }
        assertEquals(List.of("[1, 2, 3]|[1, 2, 3]|[]|3", "[4, 5, 6]|[4, 5, 6]|[1, 2, 3]|6"), r.activations);
        // 4 can be in no later window (the next one is 7, 8, 9): it expires on arrival of 7.
        assertEquals(List.of(1, 2, 3, 4), r.expired);
        assertEquals(List.of(5, 6, 7), m.events());
    }

    @Test
    void durationWindowOnProcessingTimeSlidesWithTheTimer() {
        // A window ending at R holds (R - length, R].
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(null, 1000L, null, 500L, false, r);
        m.add(1, 0);
        m.add(2, 100);
        m.add(3, 600);
        m.onTimer(700);
        // Events older than the window expire as soon as a later arrival shows it.
        m.add(4, 1500);
        assertEquals(List.of(1, 2), r.expired);
        m.onTimer(1599);
        m.onTimer(2700);
        assertEquals(List.of("[1, 2, 3]|[1, 2, 3]|[]|700", "[3, 4]|[4]|[1, 2]|1599"), r.activations,
                "the window at 2700 is empty and does not activate");
        assertEquals(List.of(1, 2, 3, 4), r.expired);
    }

    @Test
    void eventTimeWindowsActivateUpToTheWatermarkAndRejectLateEvents() {
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(null, 10L, null, 5L, true, r);
        assertTrue(m.add(12, 12));
        assertTrue(m.add(1, 1));
        assertTrue(m.add(7, 7));
        assertTrue(m.add(3, 3));
        m.onWatermark(10);
        assertEquals(List.of("[1, 3]|[1, 3]|[]|5", "[1, 3, 7]|[7]|[]|10"), r.activations);
        assertFalse(m.add(8, 8), "behind the watermark: late");
        assertTrue(m.add(10, 10), "at the watermark: in time");
        m.onWatermark(9);
        assertEquals(2, r.activations.size(), "a watermark never goes back");
        m.onWatermark(21);
        assertEquals(List.of("[1, 3]|[1, 3]|[]|5", "[1, 3, 7]|[7]|[]|10", "[7, 10, 12]|[10, 12]|[1, 3]|15",
                "[12]|[]|[7, 10]|20"), r.activations);
        assertEquals(List.of(1, 3, 7, 10), r.expired);
    }

    @Test
    void eventTimeWindowsSkipIntervalsWithoutEvents() {
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(null, 5L, null, 5L, true, r);
        m.add(2, 2);
        m.add(42, 42);
        m.onWatermark(50);
        assertEquals(List.of("[2]|[2]|[]|5", "[42]|[42]|[2]|45"), r.activations);
    }

    @Test
    void eventTimeCountWindowsCountInTimestampOrder() {
        Recorder r = new Recorder();
        EventWindowManager<Integer> m = new EventWindowManager<>(2, null, 2, null, true, r);
        m.add(5, 5);
        m.add(1, 1);
        m.add(3, 3);
        m.onWatermark(4);
        assertEquals(List.of("[1, 3]|[1, 3]|[]|3"), r.activations);
        m.add(6, 6);
        m.onWatermark(10);
        assertEquals(List.of("[1, 3]|[1, 3]|[]|3", "[5, 6]|[5, 6]|[1, 3]|6"), r.activations);
    }

    @Test
    void rejectsAnIncompleteShape() {
        Recorder r = new Recorder();
        assertThrows(IllegalArgumentException.class, () -> new EventWindowManager<>(null, null, 1, null, false, r));
        assertThrows(IllegalArgumentException.class, () -> new EventWindowManager<>(3, 10L, 1, null, false, r));
        assertThrows(IllegalArgumentException.class, () -> new EventWindowManager<>(3, null, 0, null, false, r));
    }
}

package dev.egret.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RateTopologyTest {
    private static final long S = 1_000_000_000L;

    @Test
    void dueCountsWholeAndPartSecondsWithoutOverflow() {
        assertEquals(1500, RateTopology.Pacer.due(S + S / 2, 1000));
        assertEquals(0, RateTopology.Pacer.due(S / 2000, 1000));
        // An hour at two million per second.
        assertEquals(7_200_000_000L, RateTopology.Pacer.due(3600 * S, 2_000_000));
    }

    @Test
    void emitsWhatIsDueInBurstsOfAtMostTheLimit() {
        RateTopology.Pacer pacer = new RateTopology.Pacer(10_000, 0, 1000);
        assertEquals(0, pacer.take(0));
        assertEquals(50, pacer.take(S / 200));
        assertEquals(0, pacer.take(S / 200));
        assertEquals(1000, pacer.take(S / 5));
        assertEquals(950, pacer.take(S / 5));
        assertEquals(2000, pacer.emitted());
        assertEquals(0, pacer.dropped());
    }

    @Test
    void eachTupleIsDueWhenTheCountFirstIncludesIt() {
        RateTopology.Pacer pacer = new RateTopology.Pacer(3, 100, 1000);
        // Three a second from 100 ns: tuple 0 is due at a third of a second (rounded up).
        assertEquals(100 + 333_333_334L, pacer.dueNanos(0));
        assertEquals(100 + 666_666_667L, pacer.dueNanos(1));
        assertEquals(100 + S, pacer.dueNanos(2));
        assertEquals(100 + 3600 * S, pacer.dueNanos(3 * 3600 - 1));
        for (long k = 0; k < 10; k++) {
            long at = pacer.dueNanos(k) - 100;
            assertEquals(k + 1, RateTopology.Pacer.due(at, 3));
            assertEquals(k, RateTopology.Pacer.due(at - 1, 3));
        }
    }

    @Test
    void theFirstNumberOfATakeCountsTheDroppedBeforeIt() {
        RateTopology.Pacer pacer = new RateTopology.Pacer(1000, 0, 100_000);
        int n = pacer.take(S / 100);
        assertEquals(10, n);
        assertEquals(0, pacer.firstOfLast(n));
        // Held back for 5 s: tuples 10..3999 are dropped, 4000..4999 go now.
        n = pacer.take(5 * S);
        assertEquals(1000, n);
        assertEquals(4000, pacer.firstOfLast(n));
        assertEquals(4 * S + S / 1000, pacer.dueNanos(pacer.firstOfLast(n)));
    }

    @Test
    void aSpoutsOwnMicrosecondsGoIntoItsTasksFile() {
        LatencyHook hook = new LatencyHook();
        assertFalse(hook.render().contains("hist_us"), hook.render());
        LatencyHook.recordCompleteMicros(0, 350);
        LatencyHook.recordCompleteMicros(0, 350);
        String expected = "hist_us " + LogLinearHistogram.bucketOf(350) + ":2\n";
        assertTrue(hook.render().contains(expected), hook.render());
    }

    @Test
    void aBacklogAboveOneSecondIsDroppedNotBurst() {
        RateTopology.Pacer pacer = new RateTopology.Pacer(1000, 0, 100_000);
        // Held back for 5 s: one second's worth is sent, four are dropped.
        assertEquals(1000, pacer.take(5 * S));
        assertEquals(4000, pacer.dropped());
        assertEquals(1, pacer.take(5 * S + S / 1000));
    }
}

package dev.egret.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    void aBacklogAboveOneSecondIsDroppedNotBurst() {
        RateTopology.Pacer pacer = new RateTopology.Pacer(1000, 0, 100_000);
        // Held back for 5 s: one second's worth is sent, four are dropped.
        assertEquals(1000, pacer.take(5 * S));
        assertEquals(4000, pacer.dropped());
        assertEquals(1, pacer.take(5 * S + S / 1000));
    }
}

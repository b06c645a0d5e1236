package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WallMillisTest {
    @Test
    void derivesFromTheMonotonicReadingAndRereadsTheWallClockEverySecond() {
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        AtomicLong reads = new AtomicLong();
        WallMillis clock = new WallMillis(() -> {
            reads.incrementAndGet();
            return wall.get();
        });
        long t0 = 5_000_000_000L;
        assertEquals(1_700_000_000_000L, clock.at(t0));
        assertEquals(1, reads.get());
        // Within the second: derived, the wall clock not read.
        assertEquals(1_700_000_000_000L, clock.at(t0 + 999_999));
        assertEquals(1_700_000_000_001L, clock.at(t0 + 1_000_000));
        assertEquals(1_700_000_000_999L, clock.at(t0 + WallMillis.REBASE_NANOS - 1));
        assertEquals(1, reads.get());
        // The wall clock stepped back a minute: seen at the next rebase, not before.
        wall.set(1_700_000_000_000L - 60_000L + 1_000L);
        assertEquals(1_700_000_000_000L - 59_000L, clock.at(t0 + WallMillis.REBASE_NANOS));
        assertEquals(2, reads.get());
        assertEquals(1_700_000_000_000L - 59_000L + 5, clock.at(t0 + WallMillis.REBASE_NANOS + 5_000_000));
        assertEquals(2, reads.get());
        // A reading older than the base (another thread's, or a reordering) rebases.
        assertEquals(wall.get(), clock.at(t0));
        assertEquals(3, reads.get());
    }

    @Test
    void theFirstReadingBasesEvenAtZeroNanos() {
        WallMillis clock = new WallMillis(() -> 42L);
        assertEquals(42L, clock.at(0L));
        assertEquals(43L, clock.at(1_000_000L));
    }
}

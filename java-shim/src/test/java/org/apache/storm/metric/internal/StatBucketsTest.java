package org.apache.storm.metric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A day of rotations keeps the windows exact at a steady rate while old buckets merge. */
class StatBucketsTest {
    @Test
    void aDayOfRotationsStaysExactAtASteadyRate() {
        long time = 0;
        CountStat count = new CountStat(20, time);
        LatencyStat lat = new LatencyStat(20, time);
        while (time < TimeBuckets.ONE_DAY + TimeBuckets.THREE_HOURS) {
            count.incBy(30);
            lat.record(time < TimeBuckets.ONE_DAY ? 10 : 40);
            time += 30_000;
            count.rotateSched(time);
            lat.rotateSched(time);
        }
        Map<String, Long> counts = count.getTimeCounts(time);
        assertEquals(600L, counts.get("600"));
        assertEquals(10_800L, counts.get("10800"));
        assertEquals(86_400L, counts.get("86400"));
        assertEquals(97_200L, counts.get(":all-time"));
        Map<String, Double> lats = lat.getTimeLatAvg(time);
        assertEquals(40.0, lats.get("600"), 1e-9);
        assertEquals(40.0, lats.get("10800"), 1e-9);
        assertEquals((40.0 * 3 + 10.0 * 21) / 24, lats.get("86400"), 1e-6);
    }

    @Test
    void tooFewBucketsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CountStat(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new RateTracker(5, 10, 0));
    }
}

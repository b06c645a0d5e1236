package org.apache.storm.utils;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TimeTest {
    @Test
    void realTimeByDefault() throws InterruptedException {
        assertFalse(Time.isSimulating());
        long before = System.currentTimeMillis();
        long now = Time.currentTimeMillis();
        assertTrue(now >= before && now <= System.currentTimeMillis());
        Time.sleep(20);
        assertTrue(Time.deltaMs(now) >= 20);
        assertThrows(IllegalStateException.class, () -> Time.advanceTime(1));
    }

    @Test
    void conversions() {
        assertEquals(3_000L, Time.secsToMillis(3));
        assertEquals(1_500L, Time.secsToMillisLong(1.5));
        assertEquals(2L, Time.nanosToMillis(2_999_999));
        assertEquals(4_000_000L, Time.millisToNanos(4));
    }

    @Test
    void simulatedTimeMovesOnlyWhenAdvancedAndWakesSleepers() throws Exception {
        try (Time.SimulatedTime t = new Time.SimulatedTime()) {
            assertTrue(Time.isSimulating());
            assertEquals(0, Time.currentTimeMillis());
            Time.advanceTimeSecs(2);
            assertEquals(2_000, Time.currentTimeMillis());
            assertEquals(2, Time.currentTimeSecs());
            assertEquals(2_000_000_000L, Time.nanoTime());
            assertThrows(IllegalArgumentException.class, () -> Time.advanceTime(-1));

            AtomicLong wokeAt = new AtomicLong(-1);
            Thread sleeper = new Thread(() -> {
                try {
                    Time.sleep(500);
                    wokeAt.set(Time.currentTimeMillis());
                } catch (InterruptedException e) {
                    wokeAt.set(-2);
                }
            });
            sleeper.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!Time.isThreadWaiting(sleeper) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(Time.isThreadWaiting(sleeper));
            Time.advanceTime(499);
            Thread.sleep(20);
            assertTrue(sleeper.isAlive(), "woke before its simulated time");
            Time.advanceTime(1);
            sleeper.join(5_000);
            assertEquals(2_500, wokeAt.get());
            assertTrue(Time.isThreadWaiting(sleeper), "a dead thread counts as waiting, as in Storm");
        }
        assertFalse(Time.isSimulating());
    }

    @Test
    void endingTheSimulationInterruptsSleepers() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread sleeper;
        try (Time.SimulatedTime t = new Time.SimulatedTime()) {
            sleeper = new Thread(() -> {
                try {
                    Time.sleepUntil(1_000_000);
                    outcome.complete(null);
                } catch (InterruptedException e) {
                    outcome.complete(e);
                }
            });
            sleeper.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!Time.isThreadWaiting(sleeper) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }
        assertTrue(outcome.get(5, TimeUnit.SECONDS) instanceof InterruptedException);
    }

    @Test
    void autoAdvanceMovesTheClockWhileSleeping() throws InterruptedException {
        try (Time.SimulatedTime t = new Time.SimulatedTime(100)) {
            Time.sleep(1_000);
            assertTrue(Time.currentTimeMillis() >= 1_000);
        }
    }
}

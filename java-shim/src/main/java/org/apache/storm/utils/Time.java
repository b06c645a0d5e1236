package org.apache.storm.utils;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's clock: the system clock by default, or a simulated clock while a
 * {@link SimulatedTime} is open (tests advance it with {@link #advanceTime}).
 *
 * <p>Invariants: simulated time starts at 0 when a {@link SimulatedTime} opens and only moves
 * forward through {@code advanceTime*} (or the auto-advance given to the
 * {@link SimulatedTime}); every simulated sleeper waits on {@link #LOCK} and is woken by each
 * advance and by the end of the simulation, which interrupts it (as Storm does) with an
 * {@link InterruptedException}. Millisecond methods use {@link System#currentTimeMillis()},
 * nanosecond methods {@link System#nanoTime()} when not simulating.
 */
public class Time {
    private static final Logger LOG = LoggerFactory.getLogger(Time.class);

    /** Guards every field below; simulated sleepers wait on it. */
    private static final Object LOCK = new Object();
    private static volatile boolean simulating = false;
    private static volatile long simulatedNanos = 0;
    private static long autoAdvanceNanosOnSleep = 0;
    /** Threads in a simulated sleep, with the simulated nano time they wait for. */
    private static final Map<Thread, Long> SLEEPERS = new HashMap<>();

    public Time() {
    }

    public static boolean isSimulating() {
        return simulating;
    }

    public static void sleepUntil(long targetTimeMs) throws InterruptedException {
        if (simulating) {
            simulatedSleepUntilNanos(millisToNanos(targetTimeMs));
            return;
        }
        long ms = targetTimeMs - currentTimeMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    public static void sleepUntilNanos(long targetTimeNanos) throws InterruptedException {
        if (simulating) {
            simulatedSleepUntilNanos(targetTimeNanos);
            return;
        }
        long nanos = targetTimeNanos - nanoTime();
        if (nanos > 0) {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        }
    }

    public static void sleep(long ms) throws InterruptedException {
        if (ms <= 0) {
            return;
        }
        if (simulating) {
            simulatedSleepUntilNanos(nanoTime() + millisToNanos(ms));
        } else {
            Thread.sleep(ms);
        }
    }

    public static void parkNanos(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return;
        }
        if (simulating) {
            simulatedSleepUntilNanos(nanoTime() + nanos);
        } else {
            LockSupport.parkNanos(nanos);
        }
    }

    public static void sleepSecs(long secs) throws InterruptedException {
        if (secs > 0) {
            sleep(secs * 1000);
        }
    }

    public static long nanoTime() {
        return simulating ? simulatedNanos : System.nanoTime();
    }

    public static long currentTimeMillis() {
        return simulating ? nanosToMillis(simulatedNanos) : System.currentTimeMillis();
    }

    public static long nanosToMillis(long nanos) {
        return nanos / 1_000_000;
    }

    public static long millisToNanos(long millis) {
        return millis * 1_000_000;
    }

    public static long secsToMillis(int secs) {
        return 1000L * secs;
    }

    public static long secsToMillisLong(double secs) {
        return (long) (1000 * secs);
    }

    public static int currentTimeSecs() {
        return (int) (currentTimeMillis() / 1000);
    }

    public static int deltaSecs(int timeInSeconds) {
        return currentTimeSecs() - timeInSeconds;
    }

    public static long deltaMs(long timeInMilliseconds) {
        return currentTimeMillis() - timeInMilliseconds;
    }

    public static void advanceTime(long ms) {
        advanceTimeNanos(millisToNanos(ms));
    }

    public static void advanceTimeSecs(long secs) {
        advanceTime(secs * 1000);
    }

    public static void advanceTimeNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("advanceTime only accepts positive time as an argument");
        }
        synchronized (LOCK) {
            if (!simulating) {
                throw new IllegalStateException("Cannot simulate time unless in simulation mode");
            }
            simulatedNanos += nanos;
            SLEEPERS.values().removeIf(target -> simulatedNanos >= target);
            LOCK.notifyAll();
            LOG.debug("Advanced simulated time to {} ns", simulatedNanos);
        }
    }

    /**
     * Whether {@code t} is blocked in a simulated sleep that has not yet ended (a dead thread
     * counts as waiting, as in Storm). Only meaningful while simulating.
     */
    public static boolean isThreadWaiting(Thread t) {
        synchronized (LOCK) {
            if (!simulating) {
                throw new IllegalStateException("Must be in simulation mode");
            }
            Long target = SLEEPERS.get(t);
            return !t.isAlive() || (target != null && simulatedNanos < target);
        }
    }

    private static void simulatedSleepUntilNanos(long targetNanos) throws InterruptedException {
        Thread me = Thread.currentThread();
        synchronized (LOCK) {
            try {
                SLEEPERS.put(me, targetNanos);
                while (simulatedNanos < targetNanos) {
                    if (!simulating) {
                        // Storm interrupts sleepers that outlive the simulation.
                        throw new InterruptedException("Simulated time ended while " + me.getName() + " slept");
                    }
                    if (autoAdvanceNanosOnSleep > 0) {
                        advanceTimeNanos(autoAdvanceNanosOnSleep);
                        // Give other threads a chance to run between auto-advances, as Storm's poll does.
                        LOCK.wait(10);
                    } else {
                        LOCK.wait();
                    }
                }
            } finally {
                SLEEPERS.remove(me);
            }
        }
    }

    /**
     * Simulated time for the life of this object (use with try-with-resources): the clock
     * starts at 0 and moves only when advanced; with {@code advanceTimeMs}, every simulated
     * sleep also advances the clock by that much each time it wakes.
     */
    public static class SimulatedTime implements AutoCloseable {
        public SimulatedTime() {
            this(null);
        }

        public SimulatedTime(Number advanceTimeMs) {
            synchronized (LOCK) {
                simulating = true;
                simulatedNanos = 0;
                SLEEPERS.clear();
                autoAdvanceNanosOnSleep = advanceTimeMs == null ? 0 : millisToNanos(advanceTimeMs.longValue());
                LOCK.notifyAll();
            }
            LOG.warn("AutoCloseable Simulated Time Starting...");
        }

        @Override
        public void close() {
            synchronized (LOCK) {
                simulating = false;
                LOCK.notifyAll();
            }
            LOG.warn("AutoCloseable Simulated Time Ending...");
        }
    }
}

package org.apache.storm.windowing;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.topology.FailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers every {@code duration} ms on processing time, on a thread of its own, once
 * started. Before each trigger the eviction policy (if given) gets the reference time
 * (now less 1 ms, since events may arrive during the evaluation) and the interval.
 *
 * <p>A throwable from the handler ends the timer; the next {@link #track} rethrows it as a
 * {@link FailedException}, on the thread that adds events.
 */
public class TimeTriggerPolicy<T> implements TriggerPolicy<T, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(TimeTriggerPolicy.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final TriggerHandler handler;
    private final ScheduledExecutorService executor;
    private final EvictionPolicy<T, ?> evictionPolicy;
    private long duration;
    private ScheduledFuture<?> executorFuture;

    public TimeTriggerPolicy(long millis, TriggerHandler handler) {
        this(millis, handler, null);
    }

    public TimeTriggerPolicy(long millis, TriggerHandler handler, EvictionPolicy<T, ?> evictionPolicy) {
        this.duration = millis;
        this.handler = handler;
        this.evictionPolicy = evictionPolicy;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "time-trigger-policy-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void track(Event<T> event) {
        checkFailures();
    }

    @Override
    public void reset() {
    }

    @Override
    public void start() {
        executorFuture = executor.scheduleAtFixedRate(this::fire, duration, duration, TimeUnit.MILLISECONDS);
    }

    @Override
    public void shutdown() {
        shutdownAndWait(executor);
    }

    static void shutdownAndWait(ScheduledExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(2, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void fire() {
        long now = System.currentTimeMillis() - 1;
        try {
            if (evictionPolicy != null) {
                evictionPolicy.setContext(new DefaultEvictionContext(now, null, null, duration));
            }
            handler.onTrigger();
        } catch (Throwable t) {
            LOG.error("The window's trigger failed; the timer stops and the next event rethrows it", t);
            throw t;
        }
    }

    static void rethrowFailure(ScheduledFuture<?> future) {
        if (future == null || !future.isDone()) {
            return;
        }
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FailedException(e);
        } catch (ExecutionException e) {
            throw new FailedException(e.getCause());
        } catch (java.util.concurrent.CancellationException e) {
            // shut down: nothing failed
        }
    }

    private void checkFailures() {
        rethrowFailure(executorFuture);
    }

    @Override
    public Void getState() {
        return null;
    }

    @Override
    public void restoreState(Void state) {
    }

    @Override
    public String toString() {
        return "TimeTriggerPolicy{duration=" + duration + ", started=" + (executorFuture != null) + "}";
    }
}

package org.apache.storm.windowing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a windowed bolt's events and evaluates its windows: the {@link TriggerPolicy} says
 * when (it calls {@link #onTrigger}), the {@link EvictionPolicy} says, event by event in
 * arrival order, which ones the window holds, which expire and which wait for later.
 *
 * <p>An evaluation scans the whole queue (events may be out of timestamp order), reports the
 * expired events to the listener's {@code onExpiry} and then, if the window holds any event,
 * calls {@code onActivation} with the window, the events that were not in the previous
 * window, and every event expired since the previous activation. Between evaluations, every
 * {@link #EXPIRE_EVENTS_THRESHOLD} added events a partial scan expires the oldest events that
 * are already due, so a long window does not hold them until its next evaluation.
 *
 * <p>Watermark events are not queued; they only reach the policies. {@code lock} guards the
 * queue scans and {@code expiredEvents}; the listener is called outside it.
 *
 * @param <T> the type of event
 */
public class WindowManager<T> implements TriggerHandler {
    /** After this many added events, the events already due expire (see the class doc). */
    public static final int EXPIRE_EVENTS_THRESHOLD = 100;
    private static final Logger LOG = LoggerFactory.getLogger(WindowManager.class);
    private static final String EVICTION_STATE_KEY = "es";
    private static final String TRIGGER_STATE_KEY = "ts";

    protected final Collection<Event<T>> queue;
    protected final WindowLifecycleListener<T> windowLifecycleListener;
    private final List<T> expiredEvents;
    private final Set<Event<T>> prevWindowEvents;
    private final AtomicInteger eventsSinceLastExpiry;
    private final ReentrantLock lock;
    protected EvictionPolicy<T, ?> evictionPolicy;
    protected TriggerPolicy<T, ?> triggerPolicy;

    public WindowManager(WindowLifecycleListener<T> lifecycleListener) {
        this(lifecycleListener, new ConcurrentLinkedQueue<>());
    }

    /** With {@code queue} holding the events (e.g. a persistent window state). */
    public WindowManager(WindowLifecycleListener<T> lifecycleListener, Collection<Event<T>> queue) {
        this.windowLifecycleListener = lifecycleListener;
        this.queue = queue;
        this.expiredEvents = new ArrayList<>();
        this.prevWindowEvents = new HashSet<>();
        this.eventsSinceLastExpiry = new AtomicInteger();
        this.lock = new ReentrantLock(true);
    }

    public void setEvictionPolicy(EvictionPolicy<T, ?> evictionPolicy) {
        this.evictionPolicy = evictionPolicy;
    }

    public void setTriggerPolicy(TriggerPolicy<T, ?> triggerPolicy) {
        this.triggerPolicy = triggerPolicy;
    }

    /** Adds an event timestamped now. */
    public void add(T event) {
        add(event, System.currentTimeMillis());
    }

    /** Adds an event with its timestamp. */
    public void add(T event, long ts) {
        add(new EventImpl<>(event, ts));
    }

    /** Adds an event (a watermark only reaches the policies); the trigger policy may evaluate at once. */
    public void add(Event<T> windowEvent) {
        if (windowEvent.isWatermark()) {
            LOG.debug("Watermark at {}", windowEvent.getTimestamp());
        } else {
            queue.add(windowEvent);
        }
        track(windowEvent);
        compactWindow();
    }

    @Override
    public boolean onTrigger() {
        List<Event<T>> windowEvents;
        List<T> expired;
        lock.lock();
        try {
            windowEvents = scanEvents(true);
            expired = new ArrayList<>(expiredEvents);
            expiredEvents.clear();
        } finally {
            lock.unlock();
        }
        List<T> events = new ArrayList<>(windowEvents.size());
        List<T> newEvents = new ArrayList<>();
        for (Event<T> e : windowEvents) {
            events.add(e.get());
            if (!prevWindowEvents.contains(e)) {
                newEvents.add(e.get());
            }
        }
        prevWindowEvents.clear();
        if (events.isEmpty()) {
            LOG.debug("The window holds no event: no activation");
        } else {
            prevWindowEvents.addAll(windowEvents);
            LOG.debug("Activating a window of {} events ({} new, {} expired)", events.size(), newEvents.size(),
                    expired.size());
            windowLifecycleListener.onActivation(events, newEvents, expired,
                    evictionPolicy.getContext().getReferenceTime());
        }
        triggerPolicy.reset();
        return !events.isEmpty();
    }

    public void shutdown() {
        LOG.debug("Shutting down the window manager");
        if (triggerPolicy != null) {
            triggerPolicy.shutdown();
        }
    }

    /** Every {@link #EXPIRE_EVENTS_THRESHOLD} events, expires the oldest events already due. */
    protected void compactWindow() {
        if (eventsSinceLastExpiry.incrementAndGet() >= EXPIRE_EVENTS_THRESHOLD) {
            scanEvents(false);
        }
    }

    private void track(Event<T> windowEvent) {
        evictionPolicy.track(windowEvent);
        triggerPolicy.track(windowEvent);
    }

    /**
     * Asks the eviction policy about each event, removing the expired ones. A full scan
     * returns the events to process; a partial one stops at the first event not expired.
     */
    private List<Event<T>> scanEvents(boolean fullScan) {
        LOG.debug("Scanning the events ({}), eviction policy {}", fullScan ? "full" : "partial", evictionPolicy);
        List<T> toExpire = new ArrayList<>();
        List<Event<T>> toProcess = new ArrayList<>();
        lock.lock();
        try {
            Iterator<Event<T>> it = queue.iterator();
            while (it.hasNext()) {
                Event<T> e = it.next();
                EvictionPolicy.Action action = evictionPolicy.evict(e);
                if (action == EvictionPolicy.Action.EXPIRE) {
                    toExpire.add(e.get());
                    it.remove();
                } else if (!fullScan || action == EvictionPolicy.Action.STOP) {
                    break;
                } else if (action == EvictionPolicy.Action.PROCESS) {
                    toProcess.add(e);
                }
            }
            expiredEvents.addAll(toExpire);
        } finally {
            lock.unlock();
        }
        eventsSinceLastExpiry.set(0);
        if (!toExpire.isEmpty()) {
            LOG.debug("{} events expired", toExpire.size());
            windowLifecycleListener.onExpiry(toExpire);
        }
        return toProcess;
    }

    /** The earliest timestamp of the events in (startTs, endTs], or {@code Long.MAX_VALUE}. */
    public long getEarliestEventTs(long startTs, long endTs) {
        long min = Long.MAX_VALUE;
        for (Event<T> e : queue) {
            long ts = e.getTimestamp();
            if (ts > startTs && ts <= endTs) {
                min = Math.min(min, ts);
            }
        }
        return min;
    }

    /** How many events have a timestamp up to {@code referenceTime}. */
    public int getEventCount(long referenceTime) {
        int n = 0;
        for (Event<T> e : queue) {
            if (e.getTimestamp() <= referenceTime) {
                n++;
            }
        }
        return n;
    }

    /**
     * Going through the events with timestamps in (startTs, endTs] in arrival order, the
     * newest timestamp seen at every {@code slidingCount}-th of them.
     */
    public List<Long> getSlidingCountTimestamps(long startTs, long endTs, int slidingCount) {
        List<Long> out = new ArrayList<>();
        if (endTs <= startTs) {
            return out;
        }
        int n = 0;
        long newest = Long.MIN_VALUE;
        for (Event<T> e : queue) {
            long ts = e.getTimestamp();
            if (ts > startTs && ts <= endTs) {
                newest = Math.max(newest, ts);
                if (++n % slidingCount == 0) {
                    out.add(newest);
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "WindowManager{evictionPolicy=" + evictionPolicy + ", triggerPolicy=" + triggerPolicy + "}";
    }

    /** Restores the policies' states from {@link #getState}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void restoreState(Map<String, Optional<?>> state) {
        Optional<?> es = state.get(EVICTION_STATE_KEY);
        if (es != null && es.isPresent()) {
            ((EvictionPolicy) evictionPolicy).restoreState(es.get());
        }
        Optional<?> ts = state.get(TRIGGER_STATE_KEY);
        if (ts != null && ts.isPresent()) {
            ((TriggerPolicy) triggerPolicy).restoreState(ts.get());
        }
    }

    /** The policies' states (absent when a policy has none), for checkpointing. */
    public Map<String, Optional<?>> getState() {
        Map<String, Optional<?>> state = new HashMap<>();
        state.put(EVICTION_STATE_KEY, Optional.ofNullable(evictionPolicy.getState()));
        state.put(TRIGGER_STATE_KEY, Optional.ofNullable(triggerPolicy.getState()));
        return state;
    }
}

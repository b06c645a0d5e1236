package org.apache.storm.windowing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Egret's window manager: keeps a bolt's events and decides when windows activate and
 * which events expire, for count and duration windows, sliding or tumbling, on processing
 * time or on event time (watermarks).
 *
 * <p>Semantics (Storm's): a window ending at reference time {@code R} holds the events with
 * timestamp {@code <= R}; a duration window of length {@code L} drops the ones with
 * timestamp {@code <= R - L}, a count window of length {@code N} keeps the last {@code N}.
 * Windows activate every sliding count of events (counted in arrival order on processing
 * time, in timestamp order up to the watermark on event time) or every sliding duration
 * (a timer on processing time; on event time at the multiples of the interval up to the
 * watermark, skipping the windows that would hold no event). A window with no event does
 * not activate. Expired events are reported once ({@link WindowLifecycleListener#onExpiry})
 * before the activation that lists them as expired.
 *
 * <p>Invariants: {@code events} is sorted by (timestamp, arrival); on event time no event
 * older than the watermark is admitted ({@link #add} returns false: it is late). Not
 * thread-safe: the caller serializes every call.
 *
 * @param <T> the type of event
 */
public final class EventWindowManager<T> {
    private static final class Entry<T> {
        final T event;
        final long ts;
        boolean reported;
        boolean counted;

        Entry(T event, long ts) {
            this.event = event;
            this.ts = ts;
        }
    }

    private final Integer lengthCount;
    private final Long lengthMs;
    private final Integer slideCount;
    private final Long slideMs;
    private final boolean eventTime;
    private final WindowLifecycleListener<T> listener;

    private final List<Entry<T>> events = new ArrayList<>();
    private final List<T> expiredSinceActivation = new ArrayList<>();
    private int sinceTrigger;
    private long lastTs = Long.MIN_VALUE;
    private long watermark = Long.MIN_VALUE;
    private long nextWindowEnd = Long.MIN_VALUE;

    /**
     * Exactly one of each pair (length count/duration, slide count/duration) must be given.
     *
     * @param eventTime true when timestamps come from the events and windows advance with
     *     {@link #onWatermark}; false for arrival time and {@link #onTimer}
     */
    public EventWindowManager(Integer lengthCount, Long lengthMs, Integer slideCount, Long slideMs,
            boolean eventTime, WindowLifecycleListener<T> listener) {
        if ((lengthCount == null) == (lengthMs == null)) {
            throw new IllegalArgumentException("Exactly one of window length count and duration must be set");
        }
        if ((slideCount == null) == (slideMs == null)) {
            throw new IllegalArgumentException("Exactly one of sliding interval count and duration must be set");
        }
        if ((lengthCount != null && lengthCount <= 0) || (lengthMs != null && lengthMs <= 0)) {
            throw new IllegalArgumentException("Window length must be positive");
        }
        if ((slideCount != null && slideCount <= 0) || (slideMs != null && slideMs <= 0)) {
            throw new IllegalArgumentException("Sliding interval must be positive");
        }
        this.lengthCount = lengthCount;
        this.lengthMs = lengthMs;
        this.slideCount = slideCount;
        this.slideMs = slideMs;
        this.eventTime = eventTime;
        this.listener = listener;
    }

    /**
     * Adds an event. On processing time {@code ts} is the arrival time (kept non-decreasing);
     * a count slide may activate a window at once.
     *
     * @return false if the event is late (event time, older than the watermark): not added
     */
    public boolean add(T event, long ts) {
        if (eventTime) {
            if (ts < watermark) {
                return false;
            }
            int i = events.size();
            while (i > 0 && events.get(i - 1).ts > ts) {
                i--;
            }
            events.add(i, new Entry<>(event, ts));
            return true;
        }
        long t = Math.max(ts, lastTs);
        lastTs = t;
        events.add(new Entry<>(event, t));
        // Events that the next window cannot hold expire now, so they are acked early.
        evict(t, events.size());
        if (slideCount != null && ++sinceTrigger >= slideCount) {
            sinceTrigger = 0;
            trigger(t);
        }
        return true;
    }

    /** Processing time, duration slide: the sliding interval elapsed at {@code now}. */
    public void onTimer(long now) {
        if (eventTime || slideMs == null) {
            return;
        }
        long t = Math.max(now, lastTs);
        lastTs = t;
        trigger(t);
    }

    /** Event time: the watermark advanced to {@code wm}; activates the windows it completes. */
    public void onWatermark(long wm) {
        if (!eventTime || wm <= watermark) {
            return;
        }
        watermark = wm;
        if (slideMs != null) {
            if (nextWindowEnd == Long.MIN_VALUE) {
                if (events.isEmpty()) {
                    return;
                }
                nextWindowEnd = alignUp(events.get(0).ts, slideMs);
            }
            while (nextWindowEnd <= wm) {
                if (trigger(nextWindowEnd)) {
                    nextWindowEnd += slideMs;
                } else {
                    Entry<T> next = firstAfter(nextWindowEnd);
                    if (next == null) {
                        break;
                    }
                    nextWindowEnd = alignUp(next.ts, slideMs);
                }
            }
        } else {
            int i = 0;
            while (i < events.size()) {
                Entry<T> e = events.get(i);
                if (e.ts > wm) {
                    break;
                }
                if (!e.counted) {
                    e.counted = true;
                    if (++sinceTrigger >= slideCount) {
                        sinceTrigger = 0;
                        int before = events.size();
                        trigger(e.ts);
                        i -= before - events.size();
                    }
                }
                i++;
            }
        }
    }

    /** The current watermark (event time), or {@code Long.MIN_VALUE}. */
    public long watermark() {
        return watermark;
    }

    /** The events held (in the window or waiting for one), oldest first. */
    public List<T> events() {
        List<T> out = new ArrayList<>(events.size());
        for (Entry<T> e : events) {
            out.add(e.event);
        }
        return out;
    }

    /** Drops every event held, returning them (a rollback discards the windows' contents). */
    public List<T> clear() {
        List<T> out = events();
        events.clear();
        expiredSinceActivation.clear();
        sinceTrigger = 0;
        return out;
    }

    private Entry<T> firstAfter(long ts) {
        for (Entry<T> e : events) {
            if (e.ts > ts) {
                return e;
            }
        }
        return null;
    }

    private static long alignUp(long ts, long interval) {
        return Math.floorDiv(ts + interval - 1, interval) * interval;
    }

    private int processable(long ref) {
        int p = 0;
        while (p < events.size() && events.get(p).ts <= ref) {
            p++;
        }
        return p;
    }

    /** Expires what a window ending at {@code ref} cannot hold among the first {@code p} events. */
    private void evict(long ref, int p) {
        int expire = 0;
        if (lengthMs != null) {
            while (expire < p && events.get(expire).ts <= ref - lengthMs) {
                expire++;
            }
        }
        if (lengthCount != null) {
            expire = Math.max(expire, p - lengthCount);
        }
        if (expire == 0) {
            return;
        }
        List<Entry<T>> gone = events.subList(0, expire);
        List<T> expired = new ArrayList<>(expire);
        for (Entry<T> e : gone) {
            expired.add(e.event);
        }
        gone.clear();
        expiredSinceActivation.addAll(expired);
        listener.onExpiry(Collections.unmodifiableList(expired));
    }

    /** Evicts and activates the window ending at {@code ref}; false if it holds no event. */
    private boolean trigger(long ref) {
        evict(ref, processable(ref));
        int size = processable(ref);
        if (size == 0) {
            return false;
        }
        List<T> window = new ArrayList<>(size);
        List<T> fresh = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Entry<T> e = events.get(i);
            window.add(e.event);
            if (!e.reported) {
                e.reported = true;
                fresh.add(e.event);
            }
        }
        List<T> expired = new ArrayList<>(expiredSinceActivation);
        expiredSinceActivation.clear();
        listener.onActivation(Collections.unmodifiableList(window), Collections.unmodifiableList(fresh),
                Collections.unmodifiableList(expired), ref);
        return true;
    }
}

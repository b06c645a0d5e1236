package org.apache.storm.windowing;

import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WindowManager} for windows that may not fit in memory (persistent windows, over
 * a {@code WindowState} queue): an evaluation hands the listener an iterator over the
 * window instead of lists, expiring events from the queue as the iteration reaches them.
 * New and expired events are not tracked (the listener gets null for them), nor are expired
 * events reported. An iterator is valid only during the listener's {@code onActivation}.
 *
 * @param <T> the type of event
 */
public class StatefulWindowManager<T> extends WindowManager<T> {
    private static final Logger LOG = LoggerFactory.getLogger(StatefulWindowManager.class);

    public StatefulWindowManager(WindowLifecycleListener<T> lifecycleListener) {
        super(lifecycleListener);
    }

    public StatefulWindowManager(WindowLifecycleListener<T> lifecycleListener, Collection<Event<T>> queue) {
        super(lifecycleListener, queue);
    }

    /** Expiry happens during evaluations only: no compaction between them. */
    @Override
    protected void compactWindow() {
    }

    @Override
    public boolean onTrigger() {
        Iterator<T> first = scanEventsStateful();
        boolean hasEvents = first.hasNext();
        if (hasEvents) {
            boolean[] valid = {true};
            Supplier<Iterator<T>> events = new Supplier<Iterator<T>>() {
                private Iterator<T> initial = first;

                @Override
                public Iterator<T> get() {
                    if (!valid[0]) {
                        throw new IllegalStateException(
                                "Stale iterator: a window's iterator is valid only within its execute");
                    }
                    Iterator<T> it = initial != null ? initial : scanEventsStateful();
                    initial = null;
                    return checked(it, valid);
                }
            };
            LOG.debug("Activating a window through an iterator");
            windowLifecycleListener.onActivation(events, null, null, evictionPolicy.getContext().getReferenceTime());
            valid[0] = false;
        } else {
            LOG.debug("The window holds no event: no activation");
        }
        triggerPolicy.reset();
        return hasEvents;
    }

    private static <T> Iterator<T> checked(Iterator<T> inner, boolean[] valid) {
        return new Iterator<T>() {
            @Override
            public boolean hasNext() {
                check();
                return inner.hasNext();
            }

            @Override
            public T next() {
                check();
                return inner.next();
            }

            private void check() {
                if (!valid[0]) {
                    throw new IllegalStateException(
                            "Stale iterator: a window's iterator is valid only within its execute");
                }
            }
        };
    }

    /** An iterator over the window's events, removing expired ones from the queue as it goes. */
    private Iterator<T> scanEventsStateful() {
        evictionPolicy.reset();
        Iterator<Event<T>> inner = queue.iterator();
        return new Iterator<T>() {
            private T next;
            private boolean stopped;

            @Override
            public boolean hasNext() {
                while (next == null && !stopped && inner.hasNext()) {
                    Event<T> e = inner.next();
                    EvictionPolicy.Action action = evictionPolicy.evict(e);
                    if (action == EvictionPolicy.Action.EXPIRE) {
                        inner.remove();
                    } else if (action == EvictionPolicy.Action.STOP) {
                        stopped = true;
                    } else if (action == EvictionPolicy.Action.PROCESS) {
                        next = e.get();
                    }
                }
                return next != null;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                T out = next;
                next = null;
                return out;
            }
        };
    }
}

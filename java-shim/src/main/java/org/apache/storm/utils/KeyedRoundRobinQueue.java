package org.apache.storm.utils;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;

/**
 * A blocking queue of values grouped by key: {@link #take()} serves the keys in turn, one
 * value of each key with values waiting, in the order the keys first had values.
 */
public class KeyedRoundRobinQueue<V> {
    private final LinkedHashMap<Object, Queue<V>> queues = new LinkedHashMap<>();

    public KeyedRoundRobinQueue() {
    }

    public synchronized void add(Object key, V val) {
        queues.computeIfAbsent(key, k -> new ArrayDeque<>()).add(val);
        notifyAll();
    }

    /** The next value, blocking until there is one; the key served moves to the back. */
    public synchronized V take() throws InterruptedException {
        while (queues.isEmpty()) {
            wait();
        }
        Iterator<Map.Entry<Object, Queue<V>>> it = queues.entrySet().iterator();
        Map.Entry<Object, Queue<V>> first = it.next();
        it.remove();
        V value = first.getValue().remove();
        if (!first.getValue().isEmpty()) {
            queues.put(first.getKey(), first.getValue()); // to the back of the rotation
        }
        return value;
    }
}

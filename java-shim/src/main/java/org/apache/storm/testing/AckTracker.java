package org.apache.storm.testing;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the acks it is told of (fails are ignored). The count lives in a process-wide table
 * under this tracker's id, so a serialized copy in the same JVM counts into the same number.
 */
public class AckTracker implements AckFailDelegate {
    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicInteger> ACKS = new ConcurrentHashMap<>();

    private final String id;

    public AckTracker() {
        id = UUID.randomUUID().toString();
        ACKS.put(id, new AtomicInteger(0));
    }

    @Override
    public void ack(Object msgId) {
        counter().incrementAndGet();
    }

    @Override
    public void fail(Object msgId) {
    }

    public int getNumAcks() {
        return counter().intValue();
    }

    public void resetNumAcks() {
        counter().set(0);
    }

    private AtomicInteger counter() {
        return ACKS.computeIfAbsent(id, k -> new AtomicInteger(0));
    }
}

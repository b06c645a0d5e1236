package org.apache.storm.utils;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process message queues by port number, for tests whose topology and driver share a JVM.
 * {@link #sendMessage} first waits (up to 20 s, on {@link Time}'s clock) for a reader of the
 * port, i.e. a first {@link #takeMessage} or {@link #pollMessage} on it.
 */
public class InprocMessaging {
    private static final Logger LOG = LoggerFactory.getLogger(InprocMessaging.class);
    private static final long WAIT_FOR_READER_MS = 20_000;
    private static final Map<Integer, LinkedBlockingQueue<Object>> QUEUES = new HashMap<>();
    private static final ConcurrentHashMap<Integer, AtomicBoolean> HAS_READER = new ConcurrentHashMap<>();
    private static int port = 1;

    public InprocMessaging() {
    }

    /** A port no one has used yet. */
    public static synchronized int acquireNewPort() {
        return port++;
    }

    /** Waits for a reader of {@code port}, then queues {@code msg}. */
    public static void sendMessage(int port, Object msg) {
        waitForReader(port);
        getQueue(port).add(msg);
    }

    /** Queues {@code msg} without waiting for a reader. */
    public static void sendMessageNoWait(int port, Object msg) {
        getQueue(port).add(msg);
    }

    /** The next message on {@code port}, blocking until there is one. */
    public static Object takeMessage(int port) throws InterruptedException {
        readerArrived(port);
        return getQueue(port).take();
    }

    /** The next message on {@code port}, or null. */
    public static Object pollMessage(int port) {
        readerArrived(port);
        return getQueue(port).poll();
    }

    /** Waits until {@code port} has had a reader, at most 20 s (then logs an error and returns). */
    public static void waitForReader(int port) {
        AtomicBoolean hasReader = hasReader(port);
        long start = Time.currentTimeMillis();
        while (!hasReader.get()) {
            if (Time.isSimulating()) {
                Time.advanceTime(10);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
            if (Time.currentTimeMillis() - start > WAIT_FOR_READER_MS) {
                LOG.error("DONE WAITING FOR READER AFTER {} ms", Time.currentTimeMillis() - start);
                break;
            }
        }
    }

    private static AtomicBoolean hasReader(int port) {
        return HAS_READER.computeIfAbsent(port, p -> new AtomicBoolean(false));
    }

    private static void readerArrived(int port) {
        hasReader(port).set(true);
    }

    private static LinkedBlockingQueue<Object> getQueue(int port) {
        synchronized (QUEUES) {
            return QUEUES.computeIfAbsent(port, p -> new LinkedBlockingQueue<>());
        }
    }
}

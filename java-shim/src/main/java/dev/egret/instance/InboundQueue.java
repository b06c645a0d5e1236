package dev.egret.instance;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The executor's input queue, bounded in bytes (the frame sizes of the messages it holds)
 * and in messages. The reader thread {@link #put}s each frame it reads and blocks while the
 * queue is full, so it stops reading the socket and the stream manager's writer, then its
 * queue, feel the pressure (its backpressure counts those bytes, not the instance's).
 *
 * <p>Bytes stay counted until the executor has handled the message ({@link #release}), not
 * only until it takes it: a batch of tuples that takes seconds to execute is still memory.
 * So the instance holds at most {@code maxBytes} of inbound messages, plus the one frame the
 * reader has read and is waiting to put; a single message larger than the bound is admitted
 * when the queue is otherwise empty (the frame cap bounds it), so a big frame never blocks
 * the reader forever.
 *
 * <p>Control entries (the end of the stream, wake-ups) weigh 0 bytes; {@link #offer} never
 * blocks and gives up when the message cap is reached.
 *
 * <p>While the executor waits for a stream manager's reply that comes on the same
 * connection (a state call: {@link #holdOpen}), {@link #put} does not block: the reply may
 * be behind tuples, and a reader blocked on a full queue would never read it while the
 * executor, blocked on the reply, never empties the queue. What is admitted meanwhile is
 * bounded by what the stream manager had queued toward this instance (its backpressure
 * watermark) during one call.
 *
 * <p>With the JNI bridge there is no reader thread: the executor reads its own frames
 * ({@link DirectInbound}), and this queue holds the wake-ups and what a thread waiting for a
 * state reply read ahead of it.
 *
 * <p>Thread-safety: one lock; any number of producers and consumers.
 */
final class InboundQueue {
    /** One queued message and the bytes it counts for. */
    static final class Entry {
        final Object message;
        final int bytes;

        Entry(Object message, int bytes) {
            this.message = message;
            this.bytes = bytes;
        }
    }

    private final long maxBytes;
    private final int maxMessages;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    /** Bytes of the queued messages plus those taken but not released yet. */
    private long bytes;
    /** Calls waiting for a reply on this connection ({@link #holdOpen}). */
    private int holds;

    InboundQueue(long maxBytes, int maxMessages) {
        if (maxBytes <= 0 || maxMessages <= 0) {
            throw new IllegalArgumentException("bounds must be positive: " + maxBytes + " bytes, "
                    + maxMessages + " messages");
        }
        this.maxBytes = maxBytes;
        this.maxMessages = maxMessages;
    }

    /** Appends a message of {@code size} bytes, waiting while the queue is full. */
    void put(Object message, int size) throws InterruptedException {
        int weight = Math.max(0, size);
        lock.lockInterruptibly();
        try {
            while (holds == 0 && (entries.size() >= maxMessages || (bytes > 0 && bytes + weight > maxBytes))) {
                notFull.await();
            }
            entries.addLast(new Entry(message, weight));
            bytes += weight;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** A reply is awaited on this connection: {@link #put} admits over the bounds until {@link #endHold}. */
    void holdOpen() {
        lock.lock();
        try {
            holds++;
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The reply {@link #holdOpen} waited for came (or the call gave up). */
    void endHold() {
        lock.lock();
        try {
            holds = Math.max(0, holds - 1);
        } finally {
            lock.unlock();
        }
    }

    /** Appends a 0-byte message unless the message cap is reached; never blocks. */
    boolean offer(Object message) {
        lock.lock();
        try {
            if (entries.size() >= maxMessages) {
                return false;
            }
            entries.addLast(new Entry(message, 0));
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The next entry, or null; its bytes stay counted until {@link #release}. */
    Entry poll() {
        lock.lock();
        try {
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** The next entry, waiting up to {@code timeout}; null when none came. */
    Entry poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (entries.isEmpty()) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: removes the head; a reader waiting on the message cap may go on. */
    private Entry take() {
        Entry e = entries.pollFirst();
        if (e != null) {
            notFull.signalAll();
        }
        return e;
    }

    /** The executor is done with {@code e}: its bytes no longer count. */
    void release(Entry e) {
        if (e == null || e.bytes == 0) {
            return;
        }
        lock.lock();
        try {
            bytes -= e.bytes;
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes held: queued plus taken and not released. */
    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return entries.size();
        } finally {
            lock.unlock();
        }
    }

    long maxBytes() {
        return maxBytes;
    }

    int maxMessages() {
        return maxMessages;
    }
}

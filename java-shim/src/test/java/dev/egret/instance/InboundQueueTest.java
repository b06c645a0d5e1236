package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InboundQueueTest {
    /** Starts a thread putting {@code n} messages of {@code size} bytes; counts those put. */
    private static Thread producer(InboundQueue q, int n, int size, AtomicInteger put) {
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    q.put("m" + i, size);
                    put.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void awaitCount(AtomicInteger c, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (c.get() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + c.get() + " of " + n);
            Thread.sleep(2);
        }
    }

    @Test
    void aHeldQueueAdmitsPastItsBoundsSoThatAReplyBehindTuplesIsRead() throws Exception {
        InboundQueue q = new InboundQueue(1000, 100);
        AtomicInteger put = new AtomicInteger();
        Thread t = producer(q, 6, 300, put);
        awaitCount(put, 3);
        Thread.sleep(50);
        assertEquals(3, put.get(), "blocked at the byte bound");
        // The executor waits for a state reply: the reader goes on.
        q.holdOpen();
        awaitCount(put, 6);
        assertEquals(1800, q.bytes());
        q.endHold();
        // Bounded again once the reply came.
        AtomicInteger more = new AtomicInteger();
        producer(q, 1, 300, more);
        Thread.sleep(50);
        assertEquals(0, more.get(), "over the bound after the hold: the reader waits");
        for (int i = 0; i < 4; i++) {
            q.release(q.poll());
        }
        awaitCount(more, 1);
        t.join(1000);
    }

    @Test
    void theReaderBlocksAtTheByteBoundUntilHandledMessagesAreReleased() throws Exception {
        InboundQueue q = new InboundQueue(1000, 100);
        AtomicInteger put = new AtomicInteger();
        Thread t = producer(q, 10, 300, put);
        awaitCount(put, 3);
        Thread.sleep(50);
        assertEquals(3, put.get(), "900 of 1000 bytes held: a fourth 300-byte message does not fit");
        assertEquals(900, q.bytes());

        InboundQueue.Entry e = q.poll();
        assertEquals("m0", e.message);
        Thread.sleep(50);
        assertEquals(3, put.get(), "a message taken but not handled still counts");
        q.release(e);
        awaitCount(put, 4);
        Thread.sleep(50);
        assertEquals(4, put.get());
        for (int i = 1; i < 10; i++) {
            InboundQueue.Entry next = q.poll(5, TimeUnit.SECONDS);
            assertEquals("m" + i, next.message, "in order");
            q.release(next);
        }
        t.join(5000);
        assertFalse(t.isAlive());
        assertEquals(0, q.bytes());
        assertNull(q.poll());
    }

    @Test
    void aMessageLargerThanTheBoundIsAdmittedAloneAndTheMessageCapHolds() throws Exception {
        InboundQueue q = new InboundQueue(100, 2);
        q.put("big", 5000);
        AtomicInteger put = new AtomicInteger();
        producer(q, 1, 1, put);
        Thread.sleep(50);
        assertEquals(0, put.get(), "nothing fits beside a message over the bound");
        q.release(q.poll());
        awaitCount(put, 1);

        // The message cap: two 0-byte entries fill it; offer gives up instead of blocking.
        assertTrue(q.offer("wake"));
        assertEquals(2, q.size());
        assertFalse(q.offer("wake"));
        assertEquals("m0", q.poll().message);
        assertTrue(q.offer("wake"));
    }

    @Test
    void pollWaitsForAMessageOrTheTimeout() throws Exception {
        InboundQueue q = new InboundQueue(100, 2);
        long t0 = System.nanoTime();
        assertNull(q.poll(30, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(25));
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(30);
                q.put("late", 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        assertEquals("late", q.poll(5, TimeUnit.SECONDS).message);
    }
}

package dev.egret.instance;

import dev.egret.proto.StreamManagerToInstance;
import dev.egret.wire.FrameBuffer;
import dev.egret.wire.FrameChannel;
import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JNI bridge's input without a reader thread: the executor reads its own frames from the
 * stream manager ({@link JniFrameChannel#readFrameWithin}) once its queue is empty, so a frame
 * goes from the stream manager's thread to the executor with one wake-up instead of two, and
 * the executor reads only as fast as it handles (the port's bounded queue pushes back on the
 * stream manager, as a full socket does).
 *
 * <p>One thread reads at a time (the read token), in the order the frames came: the executor,
 * or a thread whose state call waits for its reply ({@link #pumpForReply}); that thread hands
 * the reply to its caller and queues everything else in the executor's {@link InboundQueue},
 * which the call holds open. The executor takes what is queued before it reads again, so the
 * frames are handled in order. Log levels are applied by whichever thread reads them (with
 * this bridge every executor of the JVM receives them, and they are the JVM's). A read that
 * finds the connection gone fails the waiting state calls and ends the executor's loop
 * ({@link InstanceExecutor#END}).
 */
final class DirectInbound {
    private static final Logger LOG = LoggerFactory.getLogger(DirectInbound.class);
    private static final int SKIP_AFTER_EMPTY = 31;

    /** Where the frames come from: the JNI channel (or a test's). */
    interface Port {
        /** The next frame into {@code into} within {@code timeoutNanos} (0: no wait); false when none came or woken. */
        boolean readFrameWithin(FrameBuffer into, long timeoutNanos) throws IOException;

        /** Ends the current or next {@link #readFrameWithin} wait. */
        void wake();

        boolean isOpen();
    }

    private final Port port;
    private final InboundQueue queue;
    private final StateChannel state;
    private final String instanceId;
    private final FrameBuffer.Pool buffers;
    private final ReentrantLock token = new ReentrantLock();
    private volatile boolean ended;
    /**
     * Calls without a wait left before the next one reads the port again after a read found
     * nothing (the executor's thread only): a spout asks after every {@code nextTuple}, and a
     * native call each time would cost more than the tuple.
     */
    private int skipReads;

    DirectInbound(Port port, InboundQueue queue, StateChannel state, String instanceId, FrameBuffer.Pool buffers) {
        this.port = port;
        this.queue = queue;
        this.state = state;
        this.instanceId = instanceId;
        this.buffers = buffers;
    }

    /**
     * The executor's next entry: a queued one first, else a frame read within {@code waitNanos}
     * (0: only a frame already there); null when nothing came in time. {@link InstanceExecutor#END}
     * once the connection is gone and the queue is empty. A frame read here weighs 0 bytes in the
     * queue's count (it never was in the queue).
     */
    InboundQueue.Entry next(long waitNanos) throws InterruptedException {
        if (waitNanos <= 0 && skipReads > 0) {
            skipReads--;
            InboundQueue.Entry e = queue.poll();
            return e != null || !ended ? e : new InboundQueue.Entry(InstanceExecutor.END, 0);
        }
        long deadline = System.nanoTime() + Math.max(0, waitNanos);
        while (true) {
            InboundQueue.Entry e = queue.poll();
            if (e != null) {
                return e;
            }
            if (ended) {
                return new InboundQueue.Entry(InstanceExecutor.END, 0);
            }
            if (!token.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return null;
            }
            Object m;
            try {
                // A state call's thread may have queued frames while it held the token: they go first.
                e = queue.poll();
                if (e != null) {
                    return e;
                }
                m = read(Math.max(0, deadline - System.nanoTime()));
            } finally {
                token.unlock();
            }
            if (m != null) {
                return new InboundQueue.Entry(m, 0);
            }
            if (waitNanos <= 0) {
                skipReads = SKIP_AFTER_EMPTY;
            }
            if (System.nanoTime() - deadline >= 0) {
                // Out of time; a wake-up's entry (the writer queues it, then wakes the read) is taken now.
                return queue.poll();
            }
            // A state reply or log levels were handled, or the read was woken: look again.
        }
    }

    /**
     * A state call's wait for its reply: when no other thread is reading, reads one frame within
     * {@code waitNanos}, delivers it if it is a reply and queues it for the executor otherwise
     * (over the queue's bounds: the call holds it open); true then. False when another thread
     * reads (it delivers the reply) or the connection is gone.
     */
    boolean pumpForReply(long waitNanos) throws InterruptedException {
        if (ended || !token.tryLock()) {
            return false;
        }
        try {
            Object m = read(waitNanos);
            if (m != null && m != InstanceExecutor.END) {
                queue.put(m, weight(m));
            }
            return true;
        } finally {
            token.unlock();
        }
    }

    /** Ends a read waiting for frames (the executor has something queued to do). */
    void wake() {
        port.wake();
    }

    /** The bytes a frame counts for in the queue, as the reader thread counts them. */
    private static int weight(Object m) {
        if (m instanceof FrameBuffer) {
            return ((FrameBuffer) m).length() + FrameChannel.LENGTH_BYTES;
        }
        if (m instanceof StreamManagerToInstance) {
            return ((StreamManagerToInstance) m).getSerializedSize() + FrameChannel.LENGTH_BYTES;
        }
        return 0;
    }

    /**
     * Under the token: one frame read within {@code timeoutNanos}, as {@link Instance#route}
     * leaves it for the executor; null when none came or it was handled here;
     * {@link InstanceExecutor#END} when the connection is gone (or a frame is malformed).
     */
    private Object read(long timeoutNanos) {
        FrameBuffer frame = buffers.take();
        try {
            if (!port.readFrameWithin(frame, timeoutNanos)) {
                frame.release();
                return null;
            }
        } catch (IOException e) {
            frame.release();
            return lost(e);
        }
        try {
            return Instance.route(frame, state);
        } catch (IOException e) {
            return lost(e);
        }
    }

    private Object lost(IOException e) {
        if (e instanceof EOFException) {
            LOG.info("The stream manager closed the connection of instance {}", instanceId);
        } else if (port.isOpen()) {
            LOG.error("Reading from the stream manager failed for instance {}: {}", instanceId, e.getMessage());
        }
        ended = true;
        if (state != null) {
            state.connectionLost();
        }
        return InstanceExecutor.END;
    }
}

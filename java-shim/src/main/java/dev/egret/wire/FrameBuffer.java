package dev.egret.wire;

import java.util.ArrayDeque;

/**
 * A frame's body in a reusable array: bytes {@code [0, length())} of {@link #array()}, which
 * may be longer. Read with {@link FrameChannel#readFrame(FrameBuffer, int)}.
 *
 * <p>A buffer taken from a {@link Pool} goes back to it with {@link #release()} once nothing
 * reads it any more. An inbound frame lives from the read until its executor has handled it,
 * usually across a young collection: a pooled array is old after a while and is never copied
 * again, where a new array per frame was copied by every collection it lived through.
 */
public final class FrameBuffer {
    private byte[] array;
    private int length;
    private final Pool pool;

    /** A buffer of no pool, starting with {@code capacity} bytes. */
    public FrameBuffer(int capacity) {
        this(capacity, null);
    }

    private FrameBuffer(int capacity, Pool pool) {
        this.array = new byte[Math.max(0, capacity)];
        this.pool = pool;
    }

    public byte[] array() {
        return array;
    }

    /** The frame's length: its bytes are {@code array()[0, length())}. */
    public int length() {
        return length;
    }

    /**
     * Makes room for a frame of {@code n} bytes, to be written into the array returned (what
     * the buffer held is not kept), and sets the length.
     */
    public byte[] arrayFor(int n) {
        if (array.length < n) {
            array = new byte[n];
        }
        length = n;
        return array;
    }

    /** Gives the buffer back to its pool (nothing may read it afterwards); no-op without one. */
    public void release() {
        if (pool != null) {
            pool.give(this);
        }
    }

    /**
     * Buffers for one connection's inbound frames: at most {@code maxKept} are kept, and only
     * arrays up to {@code maxKeptBytes} (a rare huge frame's array is let go). Thread-safe:
     * the reader takes, the executor gives back.
     */
    public static final class Pool {
        private final ArrayDeque<FrameBuffer> spare = new ArrayDeque<>();
        private final int maxKept;
        private final int maxKeptBytes;
        private final int firstCapacity;

        public Pool(int maxKept, int maxKeptBytes, int firstCapacity) {
            this.maxKept = maxKept;
            this.maxKeptBytes = maxKeptBytes;
            this.firstCapacity = firstCapacity;
        }

        /** A kept buffer, or a new one. */
        public FrameBuffer take() {
            synchronized (spare) {
                FrameBuffer b = spare.pollLast();
                if (b != null) {
                    return b;
                }
            }
            return new FrameBuffer(firstCapacity, this);
        }

        void give(FrameBuffer b) {
            b.length = 0;
            if (b.array.length > maxKeptBytes) {
                return;
            }
            synchronized (spare) {
                if (spare.size() < maxKept) {
                    spare.addLast(b);
                }
            }
        }

        /** Buffers kept now (for tests). */
        public int kept() {
            synchronized (spare) {
                return spare.size();
            }
        }
    }
}

package org.apache.storm.utils;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.storm.multilang.BoltMsg;

/**
 * What a ShellBolt's writer thread sends to its subprocess: tuples, bounded by
 * {@code topology.shellbolt.max.pending} ({@link #putBoltMsg} blocks the executor while
 * full), and the task-id replies to emits, which are not bounded and go first: the
 * subprocess waits for them (it emits at most one such emit at a time), and answering it
 * first is what lets it go on reading tuples.
 */
public class ShellBoltMessageQueue implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The default of {@code topology.shellbolt.max.pending}. */
    private static final int DEFAULT_CAPACITY = 100;

    private final int capacity;
    private final ArrayDeque<List<Integer>> taskIds = new ArrayDeque<>();
    private final ArrayDeque<BoltMsg> boltMsgs = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();

    public ShellBoltMessageQueue(int boltMsgCapacity) {
        if (boltMsgCapacity <= 0) {
            throw new IllegalArgumentException("the capacity must be positive, got " + boltMsgCapacity);
        }
        this.capacity = boltMsgCapacity;
    }

    public ShellBoltMessageQueue() {
        this(DEFAULT_CAPACITY);
    }

    public void putTaskIds(List<Integer> ids) {
        lock.lock();
        try {
            taskIds.addLast(ids);
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    public void putBoltMsg(BoltMsg msg) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (boltMsgs.size() >= capacity) {
                notFull.await();
            }
            boltMsgs.addLast(msg);
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next message: a pending task-id list first, else a {@link BoltMsg}; null when
     * nothing came within the timeout.
     */
    public Object poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (taskIds.isEmpty() && boltMsgs.isEmpty()) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            if (!taskIds.isEmpty()) {
                return taskIds.pollFirst();
            }
            BoltMsg m = boltMsgs.pollFirst();
            notFull.signal();
            return m;
        } finally {
            lock.unlock();
        }
    }
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.StateChange;
import dev.egret.proto.StateReply;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.TopologyState;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import dev.egret.wire.FrameBuffer;
import dev.egret.wire.FrameChannel;
import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The executor reading its own frames (the JNI bridge): order, replies handed to the state call
 * that waits for them whichever thread reads, wake-ups, and the end of the connection.
 */
class DirectInboundTest {
    private static final byte[] WOKEN = new byte[0];
    private static final byte[] END_OF_STREAM = new byte[0];

    /** The stream manager's end of the port: frames handed over in order. */
    private static final class FakePort implements DirectInbound.Port {
        final LinkedBlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();

        @Override
        public boolean readFrameWithin(FrameBuffer into, long timeoutNanos) throws IOException {
            byte[] f;
            try {
                f = timeoutNanos == 0 ? frames.poll() : frames.poll(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (f == null || f == WOKEN) {
                return false;
            }
            if (f == END_OF_STREAM) {
                frames.add(END_OF_STREAM);
                throw new EOFException("the stream manager closed the connection");
            }
            System.arraycopy(f, 0, into.arrayFor(f.length), 0, f.length);
            return true;
        }

        @Override
        public void wake() {
            frames.add(WOKEN);
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    }

    private static byte[] tuples(int dest) {
        return StreamManagerToInstance.newBuilder()
                .setTuples(TupleBatch.newBuilder().addTuples(TupleData.newBuilder().setDestTask(dest)))
                .build().toByteArray();
    }

    private static byte[] deactivate() {
        return StreamManagerToInstance.newBuilder()
                .setState(StateChange.newBuilder().setState(TopologyState.TOPOLOGY_STATE_DEACTIVATED)).build()
                .toByteArray();
    }

    private static byte[] reply(long id) {
        return StreamManagerToInstance.newBuilder().setStateReply(StateReply.newBuilder().setRequestId(id)).build()
                .toByteArray();
    }

    private static final class Setup {
        final FakePort port = new FakePort();
        final InboundQueue queue = new InboundQueue(1 << 20, 100);
        /** What the instance sent: the stream manager answers a request only once it has it. */
        final LinkedBlockingQueue<InstanceToStreamManager> sent = new LinkedBlockingQueue<>();
        final StateChannel state = new StateChannel(new OutboundSink(new OutboundSink.FrameWriter() {
            @Override
            public void write(InstanceToStreamManager message) {
                sent.add(message);
            }

            @Override
            public void close() {
            }
        }, 1000, TimeUnit.SECONDS.toNanos(10)), queue);
        final DirectInbound direct = new DirectInbound(port, queue, state, "bolt-1", new FrameBuffer.Pool(4, 1 << 20, 64));

        Setup() {
            state.readsWith(direct);
        }

        /** A state call (request id 1) on its own thread: its outcome. */
        CompletableFuture<Object> completeOnAnotherThread() {
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    state.complete(7);
                    outcome.complete("done");
                } catch (RuntimeException e) {
                    outcome.complete(e);
                }
            });
            t.setDaemon(true);
            t.start();
            return outcome;
        }
    }

    private static int destOf(Object frame) throws Exception {
        FrameBuffer f = (FrameBuffer) frame;
        StreamManagerToInstance m = StreamManagerToInstance.parseFrom(java.nio.ByteBuffer.wrap(f.array(), 0,
                f.length()));
        return m.getTuples().getTuples(0).getDestTask();
    }

    @Test
    void aWaitingCallReadsWhenNobodyElseDoesAndQueuesWhatCameBeforeItsReplyInOrder() throws Exception {
        Setup s = new Setup();
        s.port.frames.add(tuples(1));
        s.port.frames.add(deactivate());
        s.port.frames.add(reply(1));
        s.port.frames.add(tuples(2));
        assertEquals("done", s.completeOnAnotherThread().get(30, TimeUnit.SECONDS));

        // What the call read is queued, counted by its frame size; the rest is read directly, counted 0.
        InboundQueue.Entry first = s.direct.next(0);
        assertEquals(1, destOf(first.message));
        assertEquals(tuples(1).length + FrameChannel.LENGTH_BYTES, first.bytes);
        InboundQueue.Entry second = s.direct.next(0);
        assertEquals(TopologyState.TOPOLOGY_STATE_DEACTIVATED,
                ((StreamManagerToInstance) second.message).getState().getState());
        InboundQueue.Entry third = s.direct.next(0);
        assertEquals(2, destOf(third.message));
        assertEquals(0, third.bytes);
        assertNull(s.direct.next(0));
    }

    @Test
    void theExecutorsReadHandsAReplyToTheCallWaitingOnAnotherThreadAndGoesOn() throws Exception {
        Setup s = new Setup();
        // The executor reads first (a long wait), then a call starts: either thread may read
        // the reply, and the executor gets the tuples behind it either way.
        CompletableFuture<Integer> executor = CompletableFuture.supplyAsync(() -> {
            try {
                InboundQueue.Entry e = s.direct.next(TimeUnit.SECONDS.toNanos(30));
                return destOf(e.message);
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        Thread.sleep(50);
        CompletableFuture<Object> call = s.completeOnAnotherThread();
        InstanceToStreamManager request = s.sent.poll(30, TimeUnit.SECONDS);
        assertEquals(1, request.getCheckpointComplete().getRequestId(), "the call's request: " + request);
        s.port.frames.add(reply(1));
        assertEquals("done", call.get(30, TimeUnit.SECONDS));
        s.port.frames.add(tuples(3));
        assertEquals(3, executor.get(30, TimeUnit.SECONDS));
        assertNull(s.direct.next(0));
    }

    @Test
    void aWakeEndsTheExecutorsWaitWithWhatWasQueued() throws Exception {
        Setup s = new Setup();
        Object marker = new Object();
        CompletableFuture<Object> got = CompletableFuture.supplyAsync(() -> {
            try {
                InboundQueue.Entry e = s.direct.next(TimeUnit.SECONDS.toNanos(60));
                return e == null ? null : e.message;
            } catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        Thread.sleep(50);
        assertTrue(s.queue.offer(marker));
        s.direct.wake();
        // Well within the read's 60 s: the wake ended it.
        assertSame(marker, got.get(30, TimeUnit.SECONDS));
    }

    @Test
    void aLostConnectionFailsTheWaitingCallAndEndsTheLoopAfterWhatCameBefore() throws Exception {
        Setup s = new Setup();
        s.port.frames.add(tuples(4));
        s.port.frames.add(END_OF_STREAM);
        Object outcome = s.completeOnAnotherThread().get(30, TimeUnit.SECONDS);
        assertTrue(outcome instanceof StateChannel.StateException, "the call failed: " + outcome);
        assertTrue(((RuntimeException) outcome).getMessage().contains("lost"), ((RuntimeException) outcome).getMessage());
        assertEquals(4, destOf(s.direct.next(0).message));
        assertSame(InstanceExecutor.END, s.direct.next(0).message);
        assertSame(InstanceExecutor.END, s.direct.next(TimeUnit.SECONDS.toNanos(5)).message);
    }

    @Test
    void afterAnEmptyReadCallsWithoutAWaitLookAtTheQueueOnlyAndAWaitReadsAtOnce() throws Exception {
        Setup s = new Setup();
        assertNull(s.direct.next(0));
        s.port.frames.add(tuples(5));
        // The next calls without a wait do not read the port (a spout's loop asks after every nextTuple)...
        for (int i = 0; i < 31; i++) {
            assertNull(s.direct.next(0), "call " + i);
        }
        assertEquals(1, s.port.frames.size());
        // ... then one does; and what is queued is never skipped.
        assertEquals(5, destOf(s.direct.next(0).message));
        assertNull(s.direct.next(0));
        Object marker = new Object();
        assertTrue(s.queue.offer(marker));
        assertSame(marker, s.direct.next(0).message);
        // A call that may wait reads the port at once.
        s.port.frames.add(tuples(6));
        assertEquals(6, destOf(s.direct.next(TimeUnit.SECONDS.toNanos(30)).message));
    }
}

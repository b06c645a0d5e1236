package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.AckEntry;
import dev.egret.proto.AckKind;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.TupleData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class OutboundSinkTest {
    private static final class Recorder implements OutboundSink.FrameWriter {
        final List<InstanceToStreamManager> written = new ArrayList<>();
        boolean broken;
        boolean closed;

        @Override
        public void write(InstanceToStreamManager message) throws IOException {
            if (broken) {
                throw new IOException("broken pipe");
            }
            written.add(message);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static TupleData tuple(int dest) {
        return TupleData.newBuilder().setDestTask(dest).build();
    }

    private static AckEntry ack(long xor) {
        return AckEntry.newBuilder().setKind(AckKind.ACK_KIND_ACK).setRoot(FakeSm.root(1, 1)).setXor(xor).build();
    }

    @Test
    void acksAndTuplesShareTheBatchAndCountTowardItsSize() {
        Recorder w = new Recorder();
        OutboundSink sink = new OutboundSink(w, 3, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        sink.add(tuple(1));
        sink.add(List.of(ack(7)), List.of(tuple(2)));
        assertEquals(2, w.written.size(), "ready, then one batch of 3 entries");
        InstanceToStreamManager b = w.written.get(1);
        assertEquals(1, b.getTuples().getAcksCount());
        assertEquals(2, b.getTuples().getTuplesCount());
    }

    /** Keeps each encoded frame's bytes as the writer got them. */
    private static class EncodedRecorder implements OutboundSink.FrameWriter {
        final List<InstanceToStreamManager> messages = new ArrayList<>();
        final List<InstanceToStreamManager> encoded = new ArrayList<>();
        final List<byte[]> bodies = new ArrayList<>();

        @Override
        public void write(InstanceToStreamManager message) {
            messages.add(message);
        }

        @Override
        public void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
            assertTrue(bodyOffset >= dev.egret.wire.FrameChannel.LENGTH_BYTES, "room for the length prefix");
            encoded.add(InstanceToStreamManager.parseFrom(java.nio.ByteBuffer.wrap(frame, bodyOffset, bodyLength)));
            bodies.add(java.util.Arrays.copyOfRange(frame, bodyOffset, bodyOffset + bodyLength));
        }
    }

    @Test
    void batchesAreEncodedAsTheyComeAndKeepEachFieldsOrderThroughGrowth() {
        EncodedRecorder w = new EncodedRecorder();
        OutboundSink sink = new OutboundSink(w, 1000, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        List<TupleData> sent = new ArrayList<>();
        List<AckEntry> acked = new ArrayList<>();
        // Tuples of 3 000 bytes grow the batch's first 4 KiB array several times.
        for (int i = 0; i < 40; i++) {
            byte[] values = new byte[3000];
            values[i] = (byte) (i + 1);
            TupleData t = TupleData.newBuilder().setDestTask(i).setStream("s" + i)
                    .setValues(com.google.protobuf.ByteString.copyFrom(values)).setEdgeId(i * 31L).build();
            AckEntry a = ack(1000 + i);
            sent.add(t);
            acked.add(a);
            sink.add(List.of(a), List.of(t));
        }
        sink.flush();
        assertEquals(1, w.messages.size(), "ready");
        assertEquals(1, w.encoded.size());
        InstanceToStreamManager m = w.encoded.get(0);
        assertEquals(InstanceToStreamManager.MessageCase.TUPLES, m.getMessageCase());
        assertEquals(sent, m.getTuples().getTuplesList());
        assertEquals(acked, m.getTuples().getAcksList());

        // The next batch starts afresh (in the written batch's array, if it was kept).
        sink.add(tuple(7));
        sink.flush();
        assertEquals(2, w.encoded.size());
        assertEquals(List.of(tuple(7)), w.encoded.get(1).getTuples().getTuplesList());
        assertEquals(0, w.encoded.get(1).getTuples().getAcksCount());
    }

    @Test
    void writtenBatchesArraysAreReusedWithoutAnyOfTheirOldBytes() {
        List<byte[]> arrays = new ArrayList<>();
        EncodedRecorder w = new EncodedRecorder() {
            @Override
            public void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
                super.writeEncoded(frame, bodyOffset, bodyLength);
                arrays.add(frame);
            }
        };
        OutboundSink sink = new OutboundSink(w, 3, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        List<TupleData> sent = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            // Sizes that go down and up, so a reused array holds longer old entries.
            byte[] values = new byte[(i * 37) % 200];
            java.util.Arrays.fill(values, (byte) i);
            TupleData t = TupleData.newBuilder().setDestTask(i).setStream(i % 2 == 0 ? "s" : "a longer stream")
                    .setValues(com.google.protobuf.ByteString.copyFrom(values)).build();
            sent.add(t);
            sink.add(t);
        }
        assertEquals(20, w.encoded.size(), "60 tuples in batches of 3");
        List<TupleData> received = new ArrayList<>();
        for (InstanceToStreamManager m : w.encoded) {
            assertEquals(3, m.getTuples().getTuplesCount());
            received.addAll(m.getTuples().getTuplesList());
        }
        assertEquals(sent, received);
        long distinct = arrays.stream().map(System::identityHashCode).distinct().count();
        assertTrue(distinct < 5, "the batches' arrays are reused: " + distinct + " arrays for 20 batches");
    }

    @Test
    void copiesAreEncodedAsTheTuplesTheBuilderWouldMake() throws IOException {
        EncodedRecorder w = new EncodedRecorder();
        OutboundSink sink = new OutboundSink(w, 1000, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        com.google.protobuf.ByteString stream = com.google.protobuf.ByteString.copyFromUtf8("stéream");
        com.google.protobuf.ByteString values = com.google.protobuf.ByteString.copyFrom(new byte[] {9, 8, 7});
        List<dev.egret.proto.RootId> roots = List.of(FakeSm.root(4, 0x8000_0000_0000_0001L), FakeSm.root(5, 77));
        // Negative and zero task ids, zero edges and empty fields: proto3's defaults are left out.
        int[] dests = {3, -2, 0, 1 << 20};
        long[] edges = {5, -1L, 0, 42};
        sink.addCopies(List.of(ack(11)), 6, stream, values, roots, dests, edges, 4, null, null, null);
        sink.addCopies(List.of(), 0, com.google.protobuf.ByteString.EMPTY, com.google.protobuf.ByteString.EMPTY,
                List.of(), new int[] {7, 8}, null, 2, null, null, null);
        sink.flush();
        List<TupleData> expected = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            expected.add(TupleData.newBuilder().setDestTask(dests[i]).setSrcTask(6).setStreamBytes(stream)
                    .setValues(values).addAllRoots(roots).setEdgeId(edges[i]).build());
        }
        expected.add(TupleData.newBuilder().setDestTask(7).build());
        expected.add(TupleData.newBuilder().setDestTask(8).build());
        assertEquals(1, w.encoded.size());
        assertEquals(expected, w.encoded.get(0).getTuples().getTuplesList());
        assertEquals(List.of(ack(11)), w.encoded.get(0).getTuples().getAcksList());
        // Byte for byte what the builder's messages encode to, as fields of the batch in the
        // order they were added, after the frame's header.
        java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
        com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(batch);
        out.writeMessage(dev.egret.proto.TupleBatch.ACKS_FIELD_NUMBER, ack(11));
        for (TupleData t : expected) {
            out.writeMessage(dev.egret.proto.TupleBatch.TUPLES_FIELD_NUMBER, t);
        }
        out.flush();
        byte[] want = batch.toByteArray();
        byte[] body = w.bodies.get(0);
        assertEquals(want.length + 1 + com.google.protobuf.CodedOutputStream.computeUInt32SizeNoTag(want.length),
                body.length);
        assertArrayEquals(want, java.util.Arrays.copyOfRange(body, body.length - want.length, body.length));
    }

    /** {@code entries} as the builder's messages encode, each as field {@code field} of a batch. */
    private static byte[] asFields(int field, List<? extends com.google.protobuf.MessageLite> entries)
            throws IOException {
        java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
        com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(batch);
        for (com.google.protobuf.MessageLite e : entries) {
            out.writeMessage(field, e);
        }
        out.flush();
        return batch.toByteArray();
    }

    @Test
    void acksAreEncodedAsTheEntriesTheBuilderWouldMake() throws IOException {
        EncodedRecorder w = new EncodedRecorder();
        OutboundSink sink = new OutboundSink(w, 1000, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        List<dev.egret.proto.RootId> roots = List.of(FakeSm.root(4, 0x8000_0000_0000_0001L), FakeSm.root(0, 0),
                FakeSm.root(-3, -9L));
        sink.addAcks(dev.egret.proto.AckKind.ACK_KIND_ACK, roots, 0x0123_4567_89ab_cdefL);
        // A zero xor and the unspecified kind are proto3 defaults: left out, as the builder does.
        sink.addAcks(dev.egret.proto.AckKind.ACK_KIND_FAIL, roots.subList(0, 1), 0L);
        sink.addAcks(dev.egret.proto.AckKind.ACK_KIND_UNSPECIFIED, roots.subList(2, 3), -1L);
        sink.addAcks(dev.egret.proto.AckKind.ACK_KIND_ACK, List.of(), 5L);
        sink.flush();
        List<AckEntry> expected = new ArrayList<>();
        for (dev.egret.proto.RootId r : roots) {
            expected.add(AckEntry.newBuilder().setKind(dev.egret.proto.AckKind.ACK_KIND_ACK).setRoot(r)
                    .setXor(0x0123_4567_89ab_cdefL).build());
        }
        expected.add(AckEntry.newBuilder().setKind(dev.egret.proto.AckKind.ACK_KIND_FAIL).setRoot(roots.get(0)).build());
        expected.add(AckEntry.newBuilder().setRoot(roots.get(2)).setXor(-1L).build());
        assertEquals(1, w.encoded.size());
        assertEquals(expected, w.encoded.get(0).getTuples().getAcksList());
        byte[] want = asFields(dev.egret.proto.TupleBatch.ACKS_FIELD_NUMBER, expected);
        byte[] body = w.bodies.get(0);
        assertEquals(want.length + 1 + com.google.protobuf.CodedOutputStream.computeUInt32SizeNoTag(want.length),
                body.length);
        assertArrayEquals(want, java.util.Arrays.copyOfRange(body, body.length - want.length, body.length));
    }

    @Test
    void copiesToRingsCarryNumbersAndTheRestTheirBytesEncodedAsTheBuilderWould() throws IOException {
        EncodedRecorder w = new EncodedRecorder();
        OutboundSink sink = new OutboundSink(w, 1000, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        com.google.protobuf.ByteString stream = com.google.protobuf.ByteString.copyFromUtf8("s");
        List<Object> values = List.of("a", 7L);
        dev.egret.serialization.TupleValuesCodec codec = new dev.egret.serialization.TupleValuesCodec(
                new java.util.HashMap<>());
        LocalValues.Ring free = new LocalValues.Ring();
        LocalValues.Ring full = new LocalValues.Ring();
        for (int i = 0; i < LocalValues.Ring.MAX_IN_FLIGHT; i++) {
            assertEquals(i + 1, full.put(List.of(i)));
        }
        List<dev.egret.proto.RootId> roots = List.of(FakeSm.root(4, 9));
        // Copy 0: by reference; copy 1: its pair's ring is full; copy 2: another JVM's task.
        sink.addCopies(List.of(), 6, stream, null, roots, new int[] {3, 4, 5}, new long[] {1, 2, 3}, 3, values,
                new LocalValues.Ring[] {free, full, null}, codec);
        sink.flush();
        com.google.protobuf.ByteString bytes = com.google.protobuf.ByteString.copyFrom(codec.serialize(values));
        List<TupleData> expected = List.of(
                TupleData.newBuilder().setDestTask(3).setSrcTask(6).setStreamBytes(stream).addAllRoots(roots)
                        .setEdgeId(1).setLocalRef(1).build(),
                TupleData.newBuilder().setDestTask(4).setSrcTask(6).setStreamBytes(stream).setValues(bytes)
                        .addAllRoots(roots).setEdgeId(2).build(),
                TupleData.newBuilder().setDestTask(5).setSrcTask(6).setStreamBytes(stream).setValues(bytes)
                        .addAllRoots(roots).setEdgeId(3).build());
        assertEquals(expected, w.encoded.get(0).getTuples().getTuplesList());
        byte[] want = asFields(dev.egret.proto.TupleBatch.TUPLES_FIELD_NUMBER, expected);
        byte[] body = w.bodies.get(0);
        assertArrayEquals(want, java.util.Arrays.copyOfRange(body, body.length - want.length, body.length));
        assertEquals(1, sink.localRefs());
        assertEquals(values, free.take(1), "the emitted list itself");
        assertEquals(LocalValues.Ring.MAX_IN_FLIGHT, full.held(), "the full ring is left as it was");
    }

    @Test
    void anAckAloneIsFlushedByTheTimer() {
        Recorder w = new Recorder();
        OutboundSink sink = new OutboundSink(w, 256, TimeUnit.MILLISECONDS.toNanos(5));
        sink.sendReady();
        sink.addAck(ack(1));
        long deadline = sink.flushDeadline();
        assertTrue(deadline != Long.MAX_VALUE);
        sink.flushIfDue(deadline - 1);
        assertEquals(1, w.written.size());
        sink.flushIfDue(deadline);
        assertEquals(2, w.written.size());
        assertEquals(1, w.written.get(1).getTuples().getAcksCount());
    }

    @Test
    void aFailedWriteDropsTheBatchAndEverythingUntilReconnected() {
        Recorder w = new Recorder();
        OutboundSink sink = new OutboundSink(w, 2, TimeUnit.SECONDS.toNanos(10));
        sink.sendReady();
        sink.add(tuple(1));
        w.broken = true;
        sink.add(tuple(2)); // size flush fails: no exception to the emitter
        assertTrue(w.closed);
        assertTrue(sink.isDisconnected());
        sink.add(tuple(3));
        sink.addAck(ack(3));
        assertEquals(4, sink.disconnect(), "two in the failed batch, two while disconnected");

        Recorder w2 = new Recorder();
        sink.connect(w2);
        sink.flush();
        assertEquals(1, w2.written.size(), "only ready: nothing buffered survives");
        assertEquals(InstanceToStreamManager.MessageCase.READY, w2.written.get(0).getMessageCase());
        sink.add(tuple(4));
        sink.add(tuple(5));
        assertEquals(2, w2.written.size());
        assertEquals(2, w2.written.get(1).getTuples().getTuplesCount());
    }

    /** A writer for the writer thread: thread-safe, optionally blocked on a latch or broken. */
    private static final class SlowWriter implements OutboundSink.FrameWriter {
        final List<InstanceToStreamManager> written = Collections.synchronizedList(new ArrayList<>());
        /** System.nanoTime() when each message in {@link #written} was written. */
        final List<Long> writtenAt = Collections.synchronizedList(new ArrayList<>());
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile boolean broken;
        volatile boolean closed;

        @Override
        public void write(InstanceToStreamManager message) throws IOException {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IOException("interrupted", e);
            }
            if (broken) {
                throw new IOException("broken pipe");
            }
            synchronized (written) {
                writtenAt.add(System.nanoTime());
                written.add(message);
            }
        }

        @Override
        public void close() {
            closed = true;
        }

        int tuples() {
            synchronized (written) {
                return written.stream().mapToInt(m -> m.getTuples().getTuplesCount()).sum();
            }
        }
    }

    private static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!cond.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(1);
        }
    }

    private static TupleData bigTuple(int dest, int bytes) {
        return TupleData.newBuilder().setDestTask(dest)
                .setValues(com.google.protobuf.ByteString.copyFrom(new byte[bytes])).build();
    }

    @Test
    void theWriterThreadFlushesOnTheTimerWhileTheCallerIsBusy() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = new OutboundSink(w, 256, TimeUnit.MILLISECONDS.toNanos(5), 1 << 20);
        sink.sendReady();
        long t0 = System.nanoTime();
        sink.addAck(ack(1));
        // Nobody calls flush or flushIfDue: the writer thread's timer sends the ack.
        await("the ack was not flushed by the timer", () -> w.written.size() == 2);
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(1000));
        assertEquals(1, w.written.get(1).getTuples().getAcksCount());
        sink.close();
    }

    @Test
    void aBlockedWriteBlocksOnlyTheWriterUntilTheQueueIsFull() throws Exception {
        SlowWriter w = new SlowWriter();
        // 64 KiB queue; batches are sealed at 16 KiB (a quarter), each tuple ~1 KiB.
        OutboundSink sink = new OutboundSink(w, 256, TimeUnit.SECONDS.toNanos(10), 64 * 1024);
        AtomicInteger wakes = new AtomicInteger();
        sink.onWritable(wakes::incrementAndGet);
        sink.sendReady();
        // The writer thread records the frame inside its write, and is idle only once it has
        // also cleared the frame under the lock.
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        w.gate = new CountDownLatch(1);
        // Below half the bound, a spout may go on.
        int added = 0;
        while (sink.writable()) {
            sink.add(bigTuple(1, 1000));
            added++;
            assertTrue(added < 100, "writable() never said no");
        }
        assertTrue(sink.queuedBytes() <= 40 * 1024, "stopped late: " + sink.queuedBytes());
        // An emitter that goes on anyway blocks once the queue is over its bound, not before.
        AtomicBoolean blocked = new AtomicBoolean();
        AtomicInteger more = new AtomicInteger();
        Thread emitter = new Thread(() -> {
            for (int i = 0; i < 200; i++) {
                sink.add(bigTuple(1, 1000));
                more.incrementAndGet();
            }
            blocked.set(false);
        });
        blocked.set(true);
        emitter.setDaemon(true);
        emitter.start();
        Thread.sleep(200);
        assertTrue(emitter.isAlive() && blocked.get(), "the emitter should wait for room");
        assertTrue(sink.queuedBytes() <= 64 * 1024 + 17 * 1024, "over bound + one batch: " + sink.queuedBytes());
        assertEquals(0, wakes.get());

        w.gate.countDown();
        emitter.join(5000);
        assertEquals(200, more.get());
        sink.flush();
        int total = added + 200;
        await("everything written", () -> w.tuples() == total);
        assertTrue(wakes.get() >= 1, "the spout was not woken once the queue drained");
        assertTrue(sink.writable());
        sink.close();
    }

    @Test
    void aFailedWriteOnTheWriterThreadDropsWhatIsQueuedAndDisconnects() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = new OutboundSink(w, 2, TimeUnit.SECONDS.toNanos(10), 1 << 20);
        sink.sendReady();
        // The writer thread records the frame inside its write, and is idle only once it has
        // also cleared the frame under the lock.
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        w.broken = true;
        sink.add(tuple(1));
        sink.add(tuple(2));
        await("the failed write disconnects", sink::isDisconnected);
        assertTrue(w.closed);
        sink.add(tuple(3));
        assertEquals(3, sink.disconnect(), "two in the failed batch, one while disconnected");

        SlowWriter w2 = new SlowWriter();
        sink.connect(w2);
        sink.add(List.of(ack(9)), List.of(tuple(4), tuple(5)));
        await("ready and one batch on the new connection", () -> w2.written.size() == 2);
        assertEquals(InstanceToStreamManager.MessageCase.READY, w2.written.get(0).getMessageCase());
        assertEquals(1, w2.written.get(1).getTuples().getAcksCount(), "the ack travels with its tuples");
        assertEquals(2, w2.written.get(1).getTuples().getTuplesCount());
        sink.close();
    }

    /**
     * A writer that, like the JNI bridge's channel, can take a batch without waiting while
     * {@link #room} lasts; records each frame with the name of the thread that wrote it.
     * Blocking writes (the writer thread's) wait on {@link #gate}.
     */
    private static final class TryWriter implements OutboundSink.FrameWriter {
        final List<String> written = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger room = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile boolean broken;
        volatile boolean closed;

        private void record(InstanceToStreamManager m) {
            String what = m.hasTuples() ? "tuples" + m.getTuples().getTuplesCount() : m.getMessageCase().name();
            written.add(what + "@" + Thread.currentThread().getName());
        }

        @Override
        public void write(InstanceToStreamManager message) throws IOException {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IOException("interrupted", e);
            }
            record(message);
        }

        @Override
        public boolean tryWriteEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
            if (broken) {
                throw new IOException("broken pipe");
            }
            if (room.getAndUpdate(r -> Math.max(0, r - 1)) == 0) {
                return false;
            }
            record(InstanceToStreamManager.parseFrom(java.nio.ByteBuffer.wrap(frame, bodyOffset, bodyLength)));
            return true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void aBatchIsWrittenByTheThreadThatSealsItWhenTheWriterCanTakeItNow() throws Exception {
        TryWriter w = new TryWriter();
        OutboundSink sink = new OutboundSink(w, 2, TimeUnit.SECONDS.toNanos(10), 1 << 20);
        sink.sendReady();
        // The writer thread records the frame inside its write, and is idle only once it has
        // also cleared the frame under the lock.
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        // A control frame is never tried: the writer thread wrote it.
        assertEquals("READY@sm-writer", w.written.get(0));
        w.room.set(1);
        String me = Thread.currentThread().getName();
        sink.add(tuple(1));
        sink.add(tuple(2));
        // Written before add returned, on this thread: the writer thread was not needed.
        assertEquals(List.of("READY@sm-writer", "tuples2@" + me), w.written);
        // No room: the batch goes to the writer thread, which waits as a full socket would.
        w.gate = new CountDownLatch(1);
        sink.add(tuple(3));
        sink.add(tuple(4));
        await("the writer thread took the batch", () -> sink.queuedBytes() > 0);
        // Room again, but a batch is being written: the next one queues behind it.
        w.room.set(10);
        sink.add(tuple(5));
        sink.add(tuple(6));
        assertEquals(2, w.written.size(), "nothing overtakes the blocked write");
        w.gate.countDown();
        await("both batches written", () -> w.written.size() == 4);
        assertEquals(List.of("READY@sm-writer", "tuples2@" + me, "tuples2@sm-writer", "tuples2@sm-writer"),
                w.written);
        // Idle again: the sealing thread writes.
        await("the queue drained", () -> sink.queuedBytes() == 0);
        sink.add(tuple(7));
        sink.add(tuple(8));
        assertEquals("tuples2@" + me, w.written.get(4));
        sink.close();
    }

    @Test
    void aFailedWriteOnTheSealingThreadDropsTheBatchAndDisconnects() throws Exception {
        TryWriter w = new TryWriter();
        OutboundSink sink = new OutboundSink(w, 2, TimeUnit.SECONDS.toNanos(10), 1 << 20);
        sink.sendReady();
        // The writer thread records the frame inside its write, and is idle only once it has
        // also cleared the frame under the lock.
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        w.broken = true;
        sink.add(tuple(1));
        sink.add(tuple(2));
        assertTrue(sink.isDisconnected());
        assertTrue(w.closed);
        assertEquals(2, sink.disconnect(), "the two tuples of the failed batch");
        sink.close();
    }

    /**
     * A sink with a writer thread and a 10 s timer (so only an idle flush sends a partial
     * batch within a test), once its ready frame is written and the writer is idle again.
     */
    private static OutboundSink readySink(SlowWriter w, boolean flushWhenIdle) throws InterruptedException {
        OutboundSink sink = new OutboundSink(w, 256, TimeUnit.SECONDS.toNanos(10), 1 << 20, flushWhenIdle);
        sink.sendReady();
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        return sink;
    }

    @Test
    void anIdleExecutorSealsAtOnceWhenTheWriterIsIdle() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = readySink(w, true);
        assertTrue(sink.flushWhenIdle());
        assertFalse(sink.executorIdle(), "nothing buffered: nothing to seal");
        sink.add(tuple(1));
        sink.addAck(ack(1));
        assertTrue(sink.executorIdle(), "the writer is idle: the batch goes now");
        await("the batch was written on the idle flush", () -> w.written.size() == 2);
        assertEquals(1, w.written.get(1).getTuples().getTuplesCount());
        assertEquals(1, w.written.get(1).getTuples().getAcksCount());
        sink.close();
    }

    @Test
    void whileTheWriterIsBusyTheBatchFillsAndGoesOnceItHasWritten() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = new OutboundSink(w, 256, TimeUnit.SECONDS.toNanos(10), 1 << 20, true);
        w.gate = new CountDownLatch(1);
        sink.sendReady(); // the writer blocks writing it
        await("the writer is writing ready", () -> sink.queuedBytes() > 0);
        sink.add(tuple(1));
        assertFalse(sink.executorIdle(), "the writer is busy: the batch waits");
        sink.add(tuple(2));
        sink.add(tuple(3));
        assertFalse(sink.executorIdle());
        assertEquals(0, w.written.size());
        w.gate.countDown();
        await("the writer sealed the batch once it had written ready", () -> w.written.size() == 2);
        assertEquals(3, w.written.get(1).getTuples().getTuplesCount(), "all three in one batch");
        sink.close();
    }

    @Test
    void aSecondIdleFlushWithinTheGapIsLeftToTheWriterThread() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = readySink(w, true);
        sink.add(tuple(1));
        assertTrue(sink.executorIdle());
        long sealedAt = System.nanoTime();
        sink.add(tuple(2));
        boolean sealedAgain = sink.executorIdle();
        long asked = System.nanoTime();
        if (asked - sealedAt < OutboundSink.IDLE_GAP_NANOS) {
            assertFalse(sealedAgain, "sealed again within the gap");
        }
        // Not the 10 s timer: the writer thread seals what waits once the gap has passed.
        await("the second batch was written after the gap", () -> w.tuples() == 2);
        assertEquals(3, w.written.size(), "ready and two batches of one tuple");
        sink.close();
    }

    /**
     * A spout's sink ({@link OutboundSink#sealIdleFromExecutor(boolean)}) whose executor sealed tuple
     * 1 between {@code before} and {@code after}, then found tuple 2 and ran out of work again:
     * {@code early} when that sealed it too (a whole gap had passed: a slow machine).
     */
    private static final class SpoutSinkInGap {
        final SlowWriter w = new SlowWriter();
        final OutboundSink sink;
        final long before;
        final long after;
        final boolean early;

        SpoutSinkInGap() throws InterruptedException {
            sink = readySink(w, true);
            sink.sealIdleFromExecutor(true);
            assertEquals(Long.MAX_VALUE, sink.idleSealDeadline(), "nothing waits");
            sink.add(tuple(1));
            before = System.nanoTime();
            assertTrue(sink.executorIdle());
            after = System.nanoTime();
            assertEquals(Long.MAX_VALUE, sink.idleSealDeadline(), "sealed: nothing waits");
            sink.add(tuple(2));
            early = sink.executorIdle();
        }

        /** The writer thread wrote message {@code index} no sooner than the gap and the executor's grace. */
        void assertWrittenAfterTheGrace(int index) {
            long waited = w.writtenAt.get(index) - before;
            assertTrue(waited >= OutboundSink.IDLE_GAP_NANOS + OutboundSink.EXECUTOR_SEAL_GRACE_NANOS,
                    "the writer sealed " + waited / 1000 + " µs after the last seal: within the gap and the executor's grace");
        }
    }

    @Test
    void aBatchLeftForTheGapHasASealDeadlineAtItsEnd() throws Exception {
        SpoutSinkInGap g = new SpoutSinkInGap();
        long deadline = g.sink.idleSealDeadline();
        if (!g.early && deadline != Long.MAX_VALUE) { // MAX: the writer sealed it already (a slow machine)
            assertTrue(deadline >= g.before + OutboundSink.IDLE_GAP_NANOS
                    && deadline <= g.after + OutboundSink.IDLE_GAP_NANOS,
                    "the deadline is the end of the gap after the last seal");
        }
        await("the second batch was written", () -> g.w.tuples() == 2);
        g.sink.close();
    }

    @Test
    void aSpoutSinksWriterLeavesTheIdleSealToTheExecutorForAGraceButSealsIfItDoesNotComeBack()
            throws Exception {
        SpoutSinkInGap g = new SpoutSinkInGap();
        if (!g.early) {
            // The executor never comes back: the writer seals, but not before the grace.
            await("the writer sealed the batch the executor left", () -> g.w.tuples() == 2);
            assertEquals(3, g.w.written.size(), "ready and two batches of one tuple");
            g.assertWrittenAfterTheGrace(2);
        }
        g.sink.close();
    }

    @Test
    void aBoltsWriterIsNotWokenForABatchLeftForTheGapAndSealsItWithinAFlushInterval() throws Exception {
        SlowWriter w = new SlowWriter();
        long flush = TimeUnit.MILLISECONDS.toNanos(200);
        OutboundSink sink = new OutboundSink(w, 256, flush, 1 << 20, true);
        sink.sendReady();
        await("ready written", () -> w.written.size() == 1 && sink.queuedBytes() == 0);
        sink.sealIdleFromExecutor(false);
        sink.add(tuple(1));
        assertTrue(sink.executorIdle(), "the writer is idle: the batch goes now");
        await("tuple 1 written", () -> w.tuples() == 1);
        long added = System.nanoTime();
        sink.add(tuple(2));
        if (sink.executorIdle()) {
            sink.close();
            return; // a whole gap passed meanwhile (a slow machine): sealed at once
        }
        assertTrue(sink.idleSealDeadline() != Long.MAX_VALUE, "the executor is to come back at the gap's end");
        // The executor does not come back: nothing wakes the writer for the gap; it seals
        // the batch when it next wakes, a flush interval after it last went to sleep.
        await("tuple 2 written", () -> w.tuples() == 2);
        long waited = w.writtenAt.get(2) - added;
        assertTrue(waited >= flush / 2, "sealed " + waited / 1000 + " µs after the add: the writer was woken for the gap");
        assertTrue(waited < TimeUnit.SECONDS.toNanos(2), "sealed late: " + waited / 1000 + " µs");
        sink.close();
    }

    @Test
    void aSpoutsExecutorSealsAtTheEndOfTheGapWhatWasAddedUntilThen() throws Exception {
        SpoutSinkInGap g = new SpoutSinkInGap();
        long deadline = g.sink.idleSealDeadline();
        while (!g.early && deadline != Long.MAX_VALUE && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // What the spout emits by the deadline joins the batch before it is sealed.
        g.sink.add(tuple(3));
        boolean sealed = g.sink.executorIdle();
        await("all three tuples were written", () -> g.w.tuples() == 3);
        if (!g.early) {
            if (g.w.written.size() == 3) {
                assertEquals(2, g.w.written.get(2).getTuples().getTuplesCount(),
                        "ready, tuple 1, then tuples 2 and 3 sealed together");
                if (!sealed) {
                    // The executor came back after its grace (a slow machine): the writer sealed both.
                    g.assertWrittenAfterTheGrace(2);
                }
            } else {
                // This thread stalled past the grace before adding tuple 3 (a slow machine):
                // the writer sealed tuple 2 alone, and never within the executor's grace.
                assertEquals(4, g.w.written.size(), "ready, tuple 1, tuple 2, tuple 3");
                assertEquals(1, g.w.written.get(2).getTuples().getTuplesCount());
                g.assertWrittenAfterTheGrace(2);
            }
        }
        g.sink.close();
    }

    @Test
    void withoutIdleFlushOnlyTheTimerSealsAPartialBatch() throws Exception {
        SlowWriter w = new SlowWriter();
        OutboundSink sink = readySink(w, false);
        assertFalse(sink.flushWhenIdle());
        sink.add(tuple(1));
        assertFalse(sink.executorIdle());
        Thread.sleep(100);
        assertEquals(1, w.written.size(), "sealed before its timer");
        sink.flush();
        await("flushed", () -> w.written.size() == 2);
        sink.close();
    }
}

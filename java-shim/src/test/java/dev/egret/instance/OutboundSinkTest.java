package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.AckEntry;
import dev.egret.proto.AckKind;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.TupleData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.egret.proto.RootId;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.Throttle;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Tuples read in place from an inbound frame, against protobuf's generated parser. */
class InboundBatchTest {
    private static RootId root(int task, long key) {
        return RootId.newBuilder().setSpoutTask(task).setKey(key).build();
    }

    /**
     * A frame whose batch holds one tuple of these hand-written bytes, and an unknown field
     * after it when {@code unknownField}.
     */
    private static ByteArrayOutputStream frameAround(byte[] tuple, boolean unknownField) throws Exception {
        ByteArrayOutputStream batchBytes = new ByteArrayOutputStream();
        CodedOutputStream bb = CodedOutputStream.newInstance(batchBytes);
        bb.writeByteArray(TupleBatch.TUPLES_FIELD_NUMBER, tuple);
        if (unknownField) {
            bb.writeString(30, "unknown in the batch");
        }
        bb.flush();
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        CodedOutputStream f = CodedOutputStream.newInstance(frame);
        f.writeByteArray(StreamManagerToInstance.TUPLES_FIELD_NUMBER, batchBytes.toByteArray());
        f.flush();
        return frame;
    }

    private static byte[] frameOf(TupleBatch batch) {
        return StreamManagerToInstance.newBuilder().setTuples(batch).build().toByteArray();
    }

    /**
     * Every field the decoder reports equals what the generated parser reads from the frame;
     * with {@code canonical} (each field once) the encoded sizes too, which are the bytes on
     * the wire.
     */
    private static void assertReadsAsTheParser(byte[] frame, InboundBatch batch, boolean canonical)
            throws Exception {
        batch.read(frame);
        List<TupleData> expected = StreamManagerToInstance.parseFrom(frame).getTuples().getTuplesList();
        assertEquals(expected.size(), batch.size());
        for (int i = 0; i < expected.size(); i++) {
            TupleData td = expected.get(i);
            assertEquals(td.getDestTask(), batch.destTask(i), "dest of " + i);
            assertEquals(td.getSrcTask(), batch.srcTask(i), "src of " + i);
            assertEquals(td.getStream(), batch.stream(i), "stream of " + i);
            assertArrayEquals(td.getValues().toByteArray(), Arrays.copyOfRange(batch.frame(),
                    batch.valuesOffset(i), batch.valuesOffset(i) + batch.valuesLength(i)), "values of " + i);
            assertEquals(td.getRootsList(), batch.roots(i), "roots of " + i);
            assertEquals(td.getEdgeId(), batch.edgeId(i), "edge of " + i);
            assertEquals(td.getLocalRef(), batch.localRef(i), "local ref of " + i);
            if (canonical) {
                assertEquals(td.getSerializedSize(), batch.encodedSize(i), "size of " + i);
            }
        }
    }

    @Test
    void aBatchReadsAsTheGeneratedParserReadsIt() throws Exception {
        Random random = new Random(7);
        InboundBatch batch = new InboundBatch();
        for (int round = 0; round < 50; round++) {
            TupleBatch.Builder b = TupleBatch.newBuilder();
            int n = random.nextInt(150);
            for (int i = 0; i < n; i++) {
                TupleData.Builder td = TupleData.newBuilder()
                        .setDestTask(random.nextInt(40) - 2)
                        .setSrcTask(random.nextInt(40) - 2)
                        .setStream(random.nextInt(4) == 0 ? "" : random.nextBoolean() ? "default" : "wörds-" + random.nextInt(3));
                if (random.nextBoolean()) {
                    byte[] v = new byte[random.nextInt(300)];
                    random.nextBytes(v);
                    td.setValues(ByteString.copyFrom(v));
                } else {
                    td.setLocalRef(random.nextLong() >>> random.nextInt(64));
                }
                int roots = random.nextInt(4);
                for (int r = 0; r < roots; r++) {
                    td.addRoots(root(random.nextInt(5) - 1, random.nextLong()));
                }
                if (roots > 0) {
                    td.setEdgeId(random.nextLong());
                }
                b.addTuples(td);
            }
            assertReadsAsTheParser(frameOf(b.build()), batch, true);
        }
    }

    @Test
    void consecutiveTuplesShareTheirStreamNameAndEqualRoots() throws Exception {
        List<RootId> one = List.of(root(3, 99L));
        TupleBatch b = TupleBatch.newBuilder()
                .addTuples(TupleData.newBuilder().setDestTask(1).setStream("words").addAllRoots(one).setEdgeId(5))
                .addTuples(TupleData.newBuilder().setDestTask(2).setStream("words").addAllRoots(one).setEdgeId(6))
                .addTuples(TupleData.newBuilder().setDestTask(2).setStream("words").addRoots(root(3, 100L)))
                .build();
        InboundBatch batch = new InboundBatch();
        batch.read(frameOf(b));
        assertSame(batch.stream(0), batch.stream(1));
        assertSame(batch.roots(0), batch.roots(1), "equal roots: one list");
        assertNotSame(batch.roots(1), batch.roots(2));
        assertEquals(List.of(root(3, 100L)), batch.roots(2));
        assertThrows(UnsupportedOperationException.class, () -> batch.roots(0).add(root(1, 1)));
        // The next frame still finds the last name.
        String words = batch.stream(2);
        batch.read(frameOf(b));
        assertSame(words, batch.stream(0));
    }

    @Test
    void unknownFieldsAreSkippedAndARepeatedScalarsLastValueWins() throws Exception {
        // TupleData with unknown fields of every wire type, dest_task twice and edge_id twice.
        ByteArrayOutputStream tuple = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(tuple);
        t.writeInt32(TupleData.DEST_TASK_FIELD_NUMBER, 4);
        t.writeString(40, "ignored");
        t.writeUInt64(41, 12345L);
        t.writeFixed32(42, 7);
        t.writeFixed64(43, 8L);
        t.writeInt32(TupleData.DEST_TASK_FIELD_NUMBER, 9);
        t.writeString(TupleData.STREAM_FIELD_NUMBER, "s");
        t.writeMessage(TupleData.ROOTS_FIELD_NUMBER, root(2, 22L));
        t.writeFixed64(TupleData.EDGE_ID_FIELD_NUMBER, 1L);
        t.writeFixed64(TupleData.EDGE_ID_FIELD_NUMBER, 2L);
        t.writeMessage(TupleData.ROOTS_FIELD_NUMBER, root(3, 33L));
        t.flush();
        ByteArrayOutputStream frame = frameAround(tuple.toByteArray(), true);
        InboundBatch batch = new InboundBatch();
        assertTrue(InboundBatch.carriesTuples(frame.toByteArray()));
        assertReadsAsTheParser(frame.toByteArray(), batch, false);
        assertEquals(tuple.size(), batch.encodedSize(0));
        assertEquals(9, batch.destTask(0));
        assertEquals(2L, batch.edgeId(0));
        assertEquals(List.of(root(2, 22L), root(3, 33L)), batch.roots(0));
    }

    @Test
    void onlyFramesOfTuplesAreLeftAsBytes() {
        assertFalse(InboundBatch.carriesTuples(new byte[0]));
        assertFalse(InboundBatch.carriesTuples(StreamManagerToInstance.newBuilder()
                .setThrottle(Throttle.newBuilder().setThrottled(true)).build().toByteArray()));
        assertTrue(InboundBatch.carriesTuples(frameOf(TupleBatch.getDefaultInstance())));
    }

    @Test
    void aMalformedFrameIsRefusedWholeWithTheProblemNamed() throws Exception {
        TupleBatch b = TupleBatch.newBuilder()
                .addTuples(TupleData.newBuilder().setDestTask(1).setStream("default")
                        .setValues(ByteString.copyFromUtf8("abcdef")))
                .addTuples(TupleData.newBuilder().setDestTask(2).setStream("default")
                        .setValues(ByteString.copyFromUtf8("ghijkl")))
                .build();
        byte[] whole = frameOf(b);
        InboundBatch batch = new InboundBatch();
        for (int cut = 1; cut < whole.length; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            InvalidProtocolBufferException e =
                    assertThrows(InvalidProtocolBufferException.class, () -> batch.read(part), "cut at " + cut);
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
            assertEquals(0, batch.size(), "nothing of a refused frame is kept");
        }
        // A stream name that is not UTF-8.
        ByteArrayOutputStream tuple = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(tuple);
        t.writeByteArray(TupleData.STREAM_FIELD_NUMBER, new byte[] {(byte) 0xc3, (byte) 0x28});
        t.flush();
        ByteArrayOutputStream frame = frameAround(tuple.toByteArray(), false);
        InvalidProtocolBufferException e =
                assertThrows(InvalidProtocolBufferException.class, () -> batch.read(frame.toByteArray()));
        assertTrue(e.getMessage().contains("UTF-8"), e.getMessage());
        assertThrows(InvalidProtocolBufferException.class,
                () -> StreamManagerToInstance.parseFrom(frame.toByteArray()), "the generated parser refuses it too");
    }
}

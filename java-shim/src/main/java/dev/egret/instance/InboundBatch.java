package dev.egret.instance;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.egret.proto.RootId;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The tuples of one inbound frame ({@code StreamManagerToInstance} with its {@code tuples}
 * set), read where they lie in the frame's bytes: no protobuf object per tuple.
 *
 * <p>{@link #read} checks the whole frame first and records, per tuple, its fields and where
 * its values are, in arrays this object keeps and reuses from frame to frame; so a malformed
 * frame is refused before any of its tuples runs, as the generated parser refused it. The
 * executor then walks tuples {@code 0..size()-1}. A tuple's stream name is decoded only when
 * it differs from the previous tuple's; its roots are the previous tuple's list when they are
 * equal (a bolt's emits anchored to one input follow each other), else a new immutable list.
 * The fields keep protobuf's meaning: unknown fields are skipped, a repeated scalar's last
 * value wins, {@code roots} accumulate, an absent field is its default.
 *
 * <p>One instance per executor thread; not thread-safe.
 */
final class InboundBatch {
    /** The first byte of a frame whose message is a {@code TupleBatch}: field 2, length-delimited. */
    static final int TUPLES_TAG = StreamManagerToInstance.TUPLES_FIELD_NUMBER << 3
            | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int BATCH_TUPLE_TAG = TupleBatch.TUPLES_FIELD_NUMBER << 3
            | WireFormat.WIRETYPE_LENGTH_DELIMITED;

    private static final byte[] NO_FRAME = new byte[0];

    private byte[] frame = NO_FRAME;
    private int size;
    /** Reads one entry into the arrays (made once: no object per frame). */
    private final InboundFrames.EntryReader tupleReader = this::readTuple;
    private int[] dest = new int[64];
    private int[] src = new int[64];
    private int[] valuesOff = new int[64];
    private int[] valuesLen = new int[64];
    private int[] encodedSize = new int[64];
    private long[] edge = new long[64];
    private long[] localRef = new long[64];
    private String[] stream = new String[64];
    private Object[] roots = new Object[64];

    /** The last stream name decoded, with a copy of its bytes. */
    private String lastStream = "";
    private byte[] lastStreamBytes = new byte[0];
    /** The roots of the tuple read last, and the same as pairs, for comparison. */
    private List<RootId> lastRoots = List.of();
    private int[] rootTasks = new int[4];
    private long[] rootKeys = new long[4];
    private int rootCount;
    private int[] lastRootTasks = new int[4];
    private long[] lastRootKeys = new long[4];
    private int lastRootCount;

    /**
     * Whether a frame holds a {@code StreamManagerToInstance} whose message is tuples (the
     * stream manager writes the one field of the message's oneof and nothing else).
     */
    static boolean carriesTuples(byte[] frame) {
        return carriesTuples(frame, frame.length);
    }

    /** {@link #carriesTuples(byte[])} for the frame {@code frame[0, length)}. */
    static boolean carriesTuples(byte[] frame, int length) {
        return InboundFrames.startsWith(frame, length, TUPLES_TAG);
    }

    /**
     * Reads the tuples of {@code frame}; an {@link InvalidProtocolBufferException} naming what
     * is wrong when the frame is not a well-formed message, and then no tuple is kept.
     */
    void read(byte[] frame) throws InvalidProtocolBufferException {
        read(frame, frame.length);
    }

    /** {@link #read(byte[])} for the frame {@code frame[0, length)}. */
    void read(byte[] frame, int length) throws InvalidProtocolBufferException {
        this.frame = frame;
        size = 0;
        try {
            InboundFrames.readEntries(frame, length, TUPLES_TAG, BATCH_TUPLE_TAG, tupleReader);
        } catch (InvalidProtocolBufferException e) {
            forget();
            throw e;
        }
    }

    /** Drops the references to the frame and its tuples' lists. */
    void forget() {
        Arrays.fill(roots, 0, size, null);
        Arrays.fill(stream, 0, size, null);
        size = 0;
        frame = NO_FRAME;
    }

    private void readTuple(CodedInputStream in) throws java.io.IOException {
        int length = in.readRawVarint32();
        int limit = in.pushLimit(length);
        if (size == dest.length) {
            grow();
        }
        int i = size;
        int d = 0;
        int s = 0;
        int vOff = 0;
        int vLen = 0;
        long e = 0;
        long ref = 0;
        int sOff = 0;
        int sLen = 0;
        rootCount = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case TupleData.DEST_TASK_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT:
                    d = in.readInt32();
                    break;
                case TupleData.SRC_TASK_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT:
                    s = in.readInt32();
                    break;
                case TupleData.STREAM_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED:
                    sLen = in.readRawVarint32();
                    sOff = in.getTotalBytesRead();
                    in.skipRawBytes(sLen);
                    break;
                case TupleData.VALUES_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED:
                    vLen = in.readRawVarint32();
                    vOff = in.getTotalBytesRead();
                    in.skipRawBytes(vLen);
                    break;
                case TupleData.ROOTS_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED:
                    readRoot(in);
                    break;
                case TupleData.EDGE_ID_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_FIXED64:
                    e = in.readFixed64();
                    break;
                case TupleData.LOCAL_REF_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT:
                    ref = in.readUInt64();
                    break;
                default:
                    in.skipField(tag);
                    break;
            }
        }
        in.popLimit(limit);
        dest[i] = d;
        src[i] = s;
        valuesOff[i] = vOff;
        valuesLen[i] = vLen;
        edge[i] = e;
        localRef[i] = ref;
        encodedSize[i] = length;
        stream[i] = streamAt(sOff, sLen);
        roots[i] = rootList();
        size = i + 1;
    }

    private void readRoot(CodedInputStream in) throws java.io.IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        int task = 0;
        long key = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case RootId.SPOUT_TASK_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT:
                    task = in.readInt32();
                    break;
                case RootId.KEY_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_FIXED64:
                    key = in.readFixed64();
                    break;
                default:
                    in.skipField(tag);
                    break;
            }
        }
        in.popLimit(limit);
        if (rootCount == rootTasks.length) {
            rootTasks = Arrays.copyOf(rootTasks, rootCount * 2);
            rootKeys = Arrays.copyOf(rootKeys, rootCount * 2);
        }
        rootTasks[rootCount] = task;
        rootKeys[rootCount] = key;
        rootCount++;
    }

    /** The stream name at {@code off..off+len}: the last one when the bytes are equal. */
    private String streamAt(int off, int len) throws InvalidProtocolBufferException {
        if (Arrays.equals(frame, off, off + len, lastStreamBytes, 0, lastStreamBytes.length)) {
            return lastStream;
        }
        byte[] bytes = Arrays.copyOfRange(frame, off, off + len);
        try {
            lastStream = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidProtocolBufferException("a tuple's stream name is not valid UTF-8");
        }
        lastStreamBytes = bytes;
        return lastStream;
    }

    /** The roots just read, as an immutable list: the last tuple's when they are the same. */
    private List<RootId> rootList() {
        if (rootCount == lastRootCount
                && Arrays.equals(rootTasks, 0, rootCount, lastRootTasks, 0, rootCount)
                && Arrays.equals(rootKeys, 0, rootCount, lastRootKeys, 0, rootCount)) {
            return lastRoots;
        }
        List<RootId> list;
        if (rootCount == 0) {
            list = List.of();
        } else if (rootCount == 1) {
            list = Collections.singletonList(root(0));
        } else {
            List<RootId> many = new ArrayList<>(rootCount);
            for (int r = 0; r < rootCount; r++) {
                many.add(root(r));
            }
            list = Collections.unmodifiableList(many);
        }
        if (lastRootTasks.length < rootCount) {
            lastRootTasks = new int[rootTasks.length];
            lastRootKeys = new long[rootKeys.length];
        }
        System.arraycopy(rootTasks, 0, lastRootTasks, 0, rootCount);
        System.arraycopy(rootKeys, 0, lastRootKeys, 0, rootCount);
        lastRootCount = rootCount;
        lastRoots = list;
        return list;
    }

    private RootId root(int r) {
        return RootId.newBuilder().setSpoutTask(rootTasks[r]).setKey(rootKeys[r]).build();
    }

    private void grow() {
        int n = dest.length * 2;
        dest = Arrays.copyOf(dest, n);
        src = Arrays.copyOf(src, n);
        valuesOff = Arrays.copyOf(valuesOff, n);
        valuesLen = Arrays.copyOf(valuesLen, n);
        encodedSize = Arrays.copyOf(encodedSize, n);
        edge = Arrays.copyOf(edge, n);
        localRef = Arrays.copyOf(localRef, n);
        stream = Arrays.copyOf(stream, n);
        roots = Arrays.copyOf(roots, n);
    }

    /** How many tuples the frame holds. */
    int size() {
        return size;
    }

    int destTask(int i) {
        return dest[i];
    }

    int srcTask(int i) {
        return src[i];
    }

    /** The stream's name: one instance for consecutive tuples of one stream. */
    String stream(int i) {
        return stream[i];
    }

    /** The frame holding the tuple's serialized values (at {@link #valuesOffset}). */
    byte[] frame() {
        return frame;
    }

    int valuesOffset(int i) {
        return valuesOff[i];
    }

    int valuesLength(int i) {
        return valuesLen[i];
    }

    /** Non-zero: the values were passed by reference under this number ({@link LocalValues}). */
    long localRef(int i) {
        return localRef[i];
    }

    long edgeId(int i) {
        return edge[i];
    }

    /** The tuple's roots (immutable; empty for an untracked tuple). */
    @SuppressWarnings("unchecked")
    List<RootId> roots(int i) {
        return (List<RootId>) roots[i];
    }

    /** The size of the tuple's encoded {@code TupleData}. */
    int encodedSize(int i) {
        return encodedSize[i];
    }
}

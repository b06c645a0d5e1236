package dev.egret.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.serialization.SerializationFactory;

/**
 * Tuple values on the wire: a varint count, then each value with
 * {@code writeClassAndObject}, using the Kryo Storm would build for this topology.
 *
 * <p>Not thread-safe: one codec per thread (Kryo instances and buffers are reused).
 */
public final class TupleValuesCodec {
    private static final int INITIAL_BUFFER = 4096;
    /** Detaches the input from a tuple's bytes after each read without allocating per tuple. */
    private static final byte[] NO_BYTES = new byte[0];

    private final Kryo kryo;
    private final Output output = new Output(INITIAL_BUFFER, -1);
    private final Input input = new Input();
    /**
     * Where {@link #deserialize(ByteString)} copies a tuple's bytes for Kryo when they are not
     * one array's slice, reused so that reading a tuple allocates only its values.
     */
    private byte[] scratch = new byte[INITIAL_BUFFER];
    /** Where a tuple's {@link ByteString} keeps its bytes, reused. */
    private final ArrayView view = new ArrayView();
    /** Tuples {@link #deserialize(ByteString)} had to copy (not one array's slice). */
    private long copies;

    public TupleValuesCodec(Map<String, Object> topologyConf) {
        this.kryo = SerializationFactory.getKryo(topologyConf);
    }

    /**
     * Serializes the values. A value Kryo cannot write (typically an unregistered class
     * with the Java fallback off) fails here, with a message naming the class.
     */
    public byte[] serialize(List<Object> values) {
        output.reset();
        try {
            output.writeVarInt(values.size(), true);
            for (Object v : values) {
                kryo.writeClassAndObject(output, v);
            }
            return output.toBytes();
        } catch (RuntimeException e) {
            kryo.reset();
            output.reset();
            throw new IllegalArgumentException(describe(e), e);
        } finally {
            // Keep a huge tuple from pinning a huge buffer for the life of the thread.
            if (output.getBuffer().length > 1 << 20) {
                output.setBuffer(new byte[INITIAL_BUFFER], -1);
            }
        }
    }

    public List<Object> deserialize(byte[] bytes) {
        return deserialize(bytes, 0, bytes.length);
    }

    /**
     * Deserializes values held by a {@link ByteString} (a tuple's field in its frame). A
     * string that is a view of one array (a frame parsed with aliasing, as the instance's
     * reader does) is read by Kryo where it lies, with no copy; any other shape is copied
     * once into a buffer this codec reuses. Kryo copies what it reads (strings, arrays), so
     * no value refers to the frame afterwards.
     */
    public List<Object> deserialize(ByteString bytes) {
        int size = bytes.size();
        view.clear();
        try {
            UnsafeByteOperations.unsafeWriteTo(bytes, view);
        } catch (IOException e) {
            // The view records and never throws.
            view.clear();
        }
        if (view.pieces == 1 && view.array != null && view.length == size) {
            byte[] array = view.array;
            int offset = view.offset;
            // Forget the frame at once: the view outlives this tuple.
            view.clear();
            return deserialize(array, offset, size);
        }
        view.clear();
        copies++;
        if (scratch.length < size) {
            scratch = new byte[Math.max(size, scratch.length * 2)];
        }
        bytes.copyTo(scratch, 0);
        try {
            return deserialize(scratch, 0, size);
        } finally {
            // Keep a huge tuple from pinning a huge buffer for the life of the thread.
            if (scratch.length > 1 << 20) {
                scratch = new byte[INITIAL_BUFFER];
            }
        }
    }

    /**
     * Records where a {@link ByteString} keeps its bytes, as {@link UnsafeByteOperations}
     * hands them over: one array slice ({@code writeLazy}) or anything else (pieces of a
     * rope, a buffer, a copy), which the caller then copies.
     */
    private static final class ArrayView extends ByteOutput {
        byte[] array;
        int offset;
        int length;
        int pieces;

        void clear() {
            array = null;
            pieces = 0;
        }

        @Override
        public void writeLazy(byte[] value, int off, int len) {
            pieces++;
            array = value;
            offset = off;
            length = len;
        }

        @Override
        public void write(byte value) {
            pieces += 2;
        }

        @Override
        public void write(byte[] value, int off, int len) {
            pieces += 2;
        }

        @Override
        public void write(ByteBuffer value) {
            pieces += 2;
        }

        @Override
        public void writeLazy(ByteBuffer value) {
            pieces += 2;
        }
    }

    /** How many tuples {@link #deserialize(ByteString)} copied before reading (for tests). */
    long copies() {
        return copies;
    }

    private List<Object> deserialize(byte[] bytes, int offset, int length) {
        input.setBuffer(bytes, offset, length);
        try {
            int n = input.readVarInt(true);
            if (n < 0 || n > length) {
                throw new IllegalArgumentException("Corrupt tuple: " + n + " values in " + length + " bytes");
            }
            List<Object> values = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                values.add(kryo.readClassAndObject(input));
            }
            return values;
        } catch (RuntimeException e) {
            kryo.reset();
            throw new IllegalArgumentException("Could not deserialize tuple values: " + firstLine(e), e);
        } finally {
            input.setBuffer(NO_BYTES);
        }
    }

    private static String describe(RuntimeException e) {
        String msg = firstLine(e);
        if (msg.contains("Class is not registered")) {
            return msg + " (register it with topology.kryo.register / Config.registerSerialization, or set"
                    + " topology.fall.back.on.java.serialization to true)";
        }
        return "Could not serialize tuple values: " + msg;
    }

    private static String firstLine(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.contains("Class is not registered")) {
                int nl = m.indexOf('\n', m.indexOf("Class is not registered"));
                return nl < 0 ? m.substring(m.indexOf("Class is not registered"))
                        : m.substring(m.indexOf("Class is not registered"), nl);
            }
        }
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}

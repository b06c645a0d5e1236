package dev.egret.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
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
     * Deserializes the values at {@code bytes[offset..offset+length)}, where they lie (a
     * tuple's field in its inbound frame): Kryo copies what it reads (strings, arrays), so no
     * value refers to {@code bytes} afterwards.
     */
    public List<Object> deserialize(byte[] bytes, int offset, int length) {
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

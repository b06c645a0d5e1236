package dev.egret.connectors;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.storm.state.DefaultStateSerializer;
import org.apache.storm.state.Serializer;

/** State keys as UTF-8 text, so that a test reading Redis sees them as written. */
public class TextSerializer implements Serializer<String> {
    @Override
    public byte[] serialize(String obj) {
        return obj.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * State values: a {@code Long} as decimal text; anything else (the checkpoint spout
     * keeps its {@code CheckPointState} with the same provider) as a zero byte followed by
     * Storm's {@link DefaultStateSerializer} (Kryo) bytes.
     */
    public static class LongAsText implements Serializer<Object> {
        private final DefaultStateSerializer<Object> other = new DefaultStateSerializer<>();

        @Override
        public byte[] serialize(Object obj) {
            if (obj instanceof Long l) {
                return l.toString().getBytes(StandardCharsets.UTF_8);
            }
            byte[] kryo = other.serialize(obj);
            byte[] out = new byte[kryo.length + 1];
            System.arraycopy(kryo, 0, out, 1, kryo.length);
            return out;
        }

        @Override
        public Object deserialize(byte[] b) {
            if (b.length > 0 && b[0] == 0) {
                return other.deserialize(Arrays.copyOfRange(b, 1, b.length));
            }
            return Long.valueOf(new String(b, StandardCharsets.UTF_8));
        }
    }
}

package dev.egret.connectors;

import java.nio.charset.StandardCharsets;
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

    /** State values ({@code Long}) as decimal text. */
    public static class LongAsText implements Serializer<Long> {
        @Override
        public byte[] serialize(Long obj) {
            return obj.toString().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Long deserialize(byte[] b) {
            return Long.valueOf(new String(b, StandardCharsets.UTF_8));
        }
    }
}

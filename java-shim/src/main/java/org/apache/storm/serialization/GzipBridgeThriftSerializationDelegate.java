package org.apache.storm.serialization;

import java.util.Map;

/**
 * Writes gzipped Thrift ({@link GzipThriftSerializationDelegate}) and reads both that and plain
 * Thrift ({@link ThriftSerializationDelegate}), told apart by gzip's two magic bytes: for moving
 * stored data from the plain format to the gzipped one.
 */
public class GzipBridgeThriftSerializationDelegate implements SerializationDelegate {
    private final ThriftSerializationDelegate plain = new ThriftSerializationDelegate();
    private final GzipThriftSerializationDelegate gzipped = new GzipThriftSerializationDelegate();

    public GzipBridgeThriftSerializationDelegate() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf) {
    }

    @Override
    public byte[] serialize(Object object) {
        return gzipped.serialize(object);
    }

    @Override
    public <T> T deserialize(byte[] bytes, Class<T> clazz) {
        return isGzipped(bytes) ? gzipped.deserialize(bytes, clazz) : plain.deserialize(bytes, clazz);
    }

    static boolean isGzipped(byte[] bytes) {
        return bytes != null && bytes.length > 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b;
    }
}

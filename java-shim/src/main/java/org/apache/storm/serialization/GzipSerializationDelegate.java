package org.apache.storm.serialization;

import java.util.Map;
import org.apache.storm.utils.Utils;

/** Java serialization, gzipped. */
public class GzipSerializationDelegate implements SerializationDelegate {
    public GzipSerializationDelegate() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf) {
    }

    @Override
    public byte[] serialize(Object object) {
        return Utils.gzip(Utils.javaSerialize(object));
    }

    @Override
    public <T> T deserialize(byte[] bytes, Class<T> clazz) {
        return Utils.javaDeserialize(Utils.gunzip(bytes), clazz);
    }
}

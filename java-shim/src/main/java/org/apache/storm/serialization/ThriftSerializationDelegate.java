package org.apache.storm.serialization;

import java.util.Map;
import org.apache.storm.thrift.TBase;
import org.apache.storm.utils.Utils;

/** Thrift structs in Thrift's binary protocol ({@link Utils#thriftSerialize}). */
public class ThriftSerializationDelegate implements SerializationDelegate {
    public ThriftSerializationDelegate() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf) {
    }

    @Override
    public byte[] serialize(Object object) {
        if (!(object instanceof TBase)) {
            throw new IllegalArgumentException("ThriftSerializationDelegate serializes Thrift structs only, not "
                    + (object == null ? "null" : object.getClass().getName()));
        }
        return Utils.thriftSerialize((TBase<?, ?>) object);
    }

    @Override
    public <T> T deserialize(byte[] bytes, Class<T> clazz) {
        return Utils.thriftDeserialize(clazz, bytes);
    }
}

package org.apache.storm.serialization;

import java.util.Map;
import org.apache.storm.utils.Utils;

/** Thrift structs in Thrift's binary protocol, gzipped. */
public class GzipThriftSerializationDelegate implements SerializationDelegate {
    private final ThriftSerializationDelegate thrift = new ThriftSerializationDelegate();

    public GzipThriftSerializationDelegate() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf) {
    }

    @Override
    public byte[] serialize(Object object) {
        return Utils.gzip(thrift.serialize(object));
    }

    @Override
    public <T> T deserialize(byte[] bytes, Class<T> clazz) {
        return thrift.deserialize(Utils.gunzip(bytes), clazz);
    }
}

package org.apache.storm.serialization;

import java.util.Map;

/** Turns objects into bytes and back (the format of {@code storm.meta.serialization.delegate}). */
public interface SerializationDelegate {
    /** Called once with the configuration before use. */
    void prepare(Map<String, Object> topoConf);

    byte[] serialize(Object object);

    <T> T deserialize(byte[] bytes, Class<T> clazz);
}

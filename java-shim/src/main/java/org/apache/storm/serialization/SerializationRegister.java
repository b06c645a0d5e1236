package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;

/** Registrations found through {@link java.util.ServiceLoader} and applied to every tuple Kryo. */
public interface SerializationRegister {
    void register(Kryo kryo) throws Exception;
}

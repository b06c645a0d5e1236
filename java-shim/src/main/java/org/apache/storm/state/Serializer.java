package org.apache.storm.state;

import java.io.Serializable;

/** Turns a state's keys or values into bytes and back. */
public interface Serializer<T> extends Serializable {
    byte[] serialize(T obj);

    T deserialize(byte[] b);
}

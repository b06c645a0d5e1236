package org.apache.storm.serialization;

import org.apache.storm.tuple.Tuple;

/** Turns bytes written by an {@link ITupleSerializer} back into a tuple. */
public interface ITupleDeserializer {
    Tuple deserialize(byte[] ser);
}

package org.apache.storm.serialization;

import org.apache.storm.tuple.Tuple;

/** Turns a tuple (source task, stream, message id, values) into bytes. */
public interface ITupleSerializer {
    byte[] serialize(Tuple tuple);
}

package org.apache.storm.spout;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.storm.tuple.Fields;

/** Turns one message's bytes into one tuple's values (null: the message yields no tuple). */
public interface Scheme extends Serializable {
    List<Object> deserialize(ByteBuffer ser);

    /** The fields of the tuples {@link #deserialize} returns. */
    Fields getOutputFields();
}

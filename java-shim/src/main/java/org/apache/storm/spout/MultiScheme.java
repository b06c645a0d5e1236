package org.apache.storm.spout;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.storm.tuple.Fields;

/** Turns one message's bytes into any number of tuples (null or empty: none). */
public interface MultiScheme extends Serializable {
    Iterable<List<Object>> deserialize(ByteBuffer ser);

    /** The fields of every tuple {@link #deserialize} returns. */
    Fields getOutputFields();
}

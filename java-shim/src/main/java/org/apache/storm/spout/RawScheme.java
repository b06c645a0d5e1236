package org.apache.storm.spout;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/** The message's bytes, unchanged, as the one field {@code bytes} (a {@code byte[]}). */
public class RawScheme implements Scheme {
    private static final long serialVersionUID = 1L;

    public RawScheme() {
    }

    @Override
    public List<Object> deserialize(ByteBuffer ser) {
        return Utils.tuple(Utils.toByteArray(ser));
    }

    @Override
    public Fields getOutputFields() {
        return new Fields("bytes");
    }
}

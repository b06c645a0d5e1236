package org.apache.storm.spout;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/** One tuple per message: its bytes, unchanged, as the one field {@code bytes}. */
public class RawMultiScheme implements MultiScheme {
    private static final long serialVersionUID = 1L;

    public RawMultiScheme() {
    }

    @Override
    public Iterable<List<Object>> deserialize(ByteBuffer ser) {
        List<Object> tuple = Utils.tuple(Utils.toByteArray(ser));
        return Collections.singletonList(tuple);
    }

    @Override
    public Fields getOutputFields() {
        return new Fields("bytes");
    }
}

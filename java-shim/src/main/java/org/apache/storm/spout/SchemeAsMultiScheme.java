package org.apache.storm.spout;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import org.apache.storm.tuple.Fields;

/** A {@link Scheme} seen as a {@link MultiScheme}: at most one tuple per message. */
public class SchemeAsMultiScheme implements MultiScheme {
    private static final long serialVersionUID = 1L;

    public final Scheme scheme;

    public SchemeAsMultiScheme(Scheme scheme) {
        this.scheme = scheme;
    }

    /** The wrapped scheme's tuple as a one-element list, or null when the scheme returns null. */
    @Override
    public Iterable<List<Object>> deserialize(ByteBuffer ser) {
        List<Object> values = scheme.deserialize(ser);
        return values == null ? null : Collections.singletonList(values);
    }

    @Override
    public Fields getOutputFields() {
        return scheme.getOutputFields();
    }
}

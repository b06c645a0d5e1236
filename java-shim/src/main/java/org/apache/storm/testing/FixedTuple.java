package org.apache.storm.testing;

import java.io.Serializable;
import java.util.List;
import org.apache.storm.utils.Utils;

/** A tuple (values and stream) for {@link FixedTupleSpout}. */
public class FixedTuple implements Serializable {
    private static final long serialVersionUID = 1L;

    public String stream;
    public List<Object> values;

    public FixedTuple(List<Object> values) {
        this.stream = Utils.DEFAULT_STREAM_ID;
        this.values = values;
    }

    public FixedTuple(String stream, List<Object> values) {
        this.stream = stream;
        this.values = values;
    }

    @Override
    public String toString() {
        return stream + ":<" + values.toString() + ">";
    }
}

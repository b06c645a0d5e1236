package org.apache.storm.generated;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/** One declared output stream: its field names and whether it is direct. */
public class StreamInfo implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private List<String> outputFields;
    private boolean direct;

    public StreamInfo() {
    }

    public StreamInfo(List<String> outputFields, boolean direct) {
        this.outputFields = outputFields;
        this.direct = direct;
    }

    public StreamInfo(StreamInfo other) {
        this.outputFields = other.outputFields == null ? null : new ArrayList<>(other.outputFields);
        this.direct = other.direct;
    }

    public StreamInfo deepCopy() {
        return new StreamInfo(this);
    }

    public int get_output_fields_size() {
        return outputFields == null ? 0 : outputFields.size();
    }

    public Iterator<String> get_output_fields_iterator() {
        return outputFields == null ? null : outputFields.iterator();
    }

    public void add_to_output_fields(String field) {
        if (outputFields == null) {
            outputFields = new ArrayList<>();
        }
        outputFields.add(field);
    }

    public List<String> get_output_fields() {
        return outputFields;
    }

    public void set_output_fields(List<String> outputFields) {
        this.outputFields = outputFields;
    }

    public boolean is_set_output_fields() {
        return outputFields != null;
    }

    public boolean is_direct() {
        return direct;
    }

    public void set_direct(boolean direct) {
        this.direct = direct;
    }

    @Override
    public boolean equals(Object that) {
        return that instanceof StreamInfo && equals((StreamInfo) that);
    }

    public boolean equals(StreamInfo that) {
        return that != null && direct == that.direct && Objects.equals(outputFields, that.outputFields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outputFields, direct);
    }

    @Override
    public String toString() {
        return "StreamInfo(output_fields:" + outputFields + ", direct:" + direct + ")";
    }

    public void clear() {
        outputFields = null;
        direct = false;
    }

    public boolean is_set_direct() {
        return true;
    }
}

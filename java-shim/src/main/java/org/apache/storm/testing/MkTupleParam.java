package org.apache.storm.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The stream, component and fields of a test tuple to make. */
public class MkTupleParam {
    private String stream;
    private String component;
    private List<String> fields;

    public MkTupleParam() {
    }

    public String getStream() {
        return stream;
    }

    public void setStream(String stream) {
        this.stream = stream;
    }

    public String getComponent() {
        return component;
    }

    public void setComponent(String component) {
        this.component = component;
    }

    public List<String> getFields() {
        return fields;
    }

    public void setFields(String... fields) {
        this.fields = new ArrayList<>(Arrays.asList(fields));
    }

    public void setFieldsList(List<String> fields) {
        this.fields = fields;
    }
}

package org.apache.storm.generated;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** What spouts and bolts share: inputs, declared streams, parallelism hint and JSON config. */
public class ComponentCommon implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private Map<GlobalStreamId, Grouping> inputs;
    private Map<String, StreamInfo> streams;
    private int parallelismHint;
    private boolean parallelismHintSet;
    private String jsonConf;

    public ComponentCommon() {
    }

    public ComponentCommon(Map<GlobalStreamId, Grouping> inputs, Map<String, StreamInfo> streams) {
        this.inputs = inputs;
        this.streams = streams;
    }

    public ComponentCommon(ComponentCommon other) {
        if (other.inputs != null) {
            this.inputs = new LinkedHashMap<>();
            other.inputs.forEach((k, v) -> this.inputs.put(new GlobalStreamId(k), new Grouping(v)));
        }
        if (other.streams != null) {
            this.streams = new HashMap<>();
            other.streams.forEach((k, v) -> this.streams.put(k, new StreamInfo(v)));
        }
        this.parallelismHint = other.parallelismHint;
        this.parallelismHintSet = other.parallelismHintSet;
        this.jsonConf = other.jsonConf;
    }

    public ComponentCommon deepCopy() {
        return new ComponentCommon(this);
    }

    public int get_inputs_size() {
        return inputs == null ? 0 : inputs.size();
    }

    public void put_to_inputs(GlobalStreamId key, Grouping value) {
        if (inputs == null) {
            inputs = new LinkedHashMap<>();
        }
        inputs.put(key, value);
    }

    public Map<GlobalStreamId, Grouping> get_inputs() {
        return inputs;
    }

    public void set_inputs(Map<GlobalStreamId, Grouping> inputs) {
        this.inputs = inputs;
    }

    public boolean is_set_inputs() {
        return inputs != null;
    }

    public int get_streams_size() {
        return streams == null ? 0 : streams.size();
    }

    public void put_to_streams(String key, StreamInfo value) {
        if (streams == null) {
            streams = new HashMap<>();
        }
        streams.put(key, value);
    }

    public Map<String, StreamInfo> get_streams() {
        return streams;
    }

    public void set_streams(Map<String, StreamInfo> streams) {
        this.streams = streams;
    }

    public boolean is_set_streams() {
        return streams != null;
    }

    public int get_parallelism_hint() {
        return parallelismHint;
    }

    public void set_parallelism_hint(int parallelismHint) {
        this.parallelismHint = parallelismHint;
        this.parallelismHintSet = true;
    }

    public boolean is_set_parallelism_hint() {
        return parallelismHintSet;
    }

    public void unset_parallelism_hint() {
        this.parallelismHintSet = false;
        this.parallelismHint = 0;
    }

    public String get_json_conf() {
        return jsonConf;
    }

    public void set_json_conf(String jsonConf) {
        this.jsonConf = jsonConf;
    }

    public boolean is_set_json_conf() {
        return jsonConf != null;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ComponentCommon)) {
            return false;
        }
        ComponentCommon that = (ComponentCommon) o;
        return parallelismHint == that.parallelismHint && parallelismHintSet == that.parallelismHintSet
                && Objects.equals(inputs, that.inputs) && Objects.equals(streams, that.streams)
                && Objects.equals(jsonConf, that.jsonConf);
    }

    @Override
    public int hashCode() {
        return Objects.hash(inputs, streams, parallelismHint, jsonConf);
    }

    @Override
    public String toString() {
        return "ComponentCommon(inputs:" + inputs + ", streams:" + streams
                + (parallelismHintSet ? ", parallelism_hint:" + parallelismHint : "")
                + (jsonConf != null ? ", json_conf:" + jsonConf : "") + ")";
    }

    public void clear() {
        inputs = null;
        streams = null;
        unset_parallelism_hint();
        jsonConf = null;
    }

    public boolean equals(ComponentCommon that) {
        return equals((Object) that);
    }
}

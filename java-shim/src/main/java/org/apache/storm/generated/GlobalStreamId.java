package org.apache.storm.generated;

import java.util.Comparator;
import java.util.Objects;

/** A stream of a component: (component id, stream id). */
public class GlobalStreamId implements java.io.Serializable, Cloneable, Comparable<GlobalStreamId> {
    private static final long serialVersionUID = 1L;
    private static final Comparator<String> NULLS_FIRST = Comparator.nullsFirst(Comparator.naturalOrder());

    private String componentId;
    private String streamId;

    public GlobalStreamId() {
    }

    public GlobalStreamId(String componentId, String streamId) {
        this.componentId = componentId;
        this.streamId = streamId;
    }

    public GlobalStreamId(GlobalStreamId other) {
        this.componentId = other.componentId;
        this.streamId = other.streamId;
    }

    public GlobalStreamId deepCopy() {
        return new GlobalStreamId(this);
    }

    public void clear() {
        componentId = null;
        streamId = null;
    }

    public String get_componentId() {
        return componentId;
    }

    public void set_componentId(String componentId) {
        this.componentId = componentId;
    }

    public boolean is_set_componentId() {
        return componentId != null;
    }

    public String get_streamId() {
        return streamId;
    }

    public void set_streamId(String streamId) {
        this.streamId = streamId;
    }

    public boolean is_set_streamId() {
        return streamId != null;
    }

    @Override
    public boolean equals(Object that) {
        return that instanceof GlobalStreamId && equals((GlobalStreamId) that);
    }

    public boolean equals(GlobalStreamId that) {
        return that != null && Objects.equals(componentId, that.componentId)
                && Objects.equals(streamId, that.streamId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(componentId, streamId);
    }

    @Override
    public int compareTo(GlobalStreamId other) {
        int c = NULLS_FIRST.compare(componentId, other.componentId);
        return c != 0 ? c : NULLS_FIRST.compare(streamId, other.streamId);
    }

    @Override
    public String toString() {
        return "GlobalStreamId(componentId:" + componentId + ", streamId:" + streamId + ")";
    }
}

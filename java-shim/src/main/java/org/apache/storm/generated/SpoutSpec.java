package org.apache.storm.generated;

import java.util.Objects;

/** A component of a {@link StormTopology}: its implementation object and its common part. */
public class SpoutSpec implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private ComponentObject object;
    private ComponentCommon common;

    public SpoutSpec() {
    }

    public SpoutSpec(ComponentObject object, ComponentCommon common) {
        this.object = object;
        this.common = common;
    }

    public SpoutSpec(SpoutSpec other) {
        this.object = other.object == null ? null : new ComponentObject(other.object);
        this.common = other.common == null ? null : new ComponentCommon(other.common);
    }

    public SpoutSpec deepCopy() {
        return new SpoutSpec(this);
    }

    public ComponentObject get_spout_object() {
        return object;
    }

    public void set_spout_object(ComponentObject object) {
        this.object = object;
    }

    public boolean is_set_spout_object() {
        return object != null;
    }

    public ComponentCommon get_common() {
        return common;
    }

    public void set_common(ComponentCommon common) {
        this.common = common;
    }

    public boolean is_set_common() {
        return common != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpoutSpec && Objects.equals(object, ((SpoutSpec) o).object) && Objects.equals(common, ((SpoutSpec) o).common);
    }

    @Override
    public int hashCode() {
        return Objects.hash(object, common);
    }

    @Override
    public String toString() {
        return "SpoutSpec(common:" + common + ")";
    }

    public void clear() {
        object = null;
        common = null;
    }

    public boolean equals(SpoutSpec that) {
        return equals((Object) that);
    }
}

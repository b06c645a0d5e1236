package org.apache.storm.generated;

import java.util.Objects;

/** A component of a {@link StormTopology}: its implementation object and its common part. */
public class Bolt implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private ComponentObject object;
    private ComponentCommon common;

    public Bolt() {
    }

    public Bolt(ComponentObject object, ComponentCommon common) {
        this.object = object;
        this.common = common;
    }

    public Bolt(Bolt other) {
        this.object = other.object == null ? null : new ComponentObject(other.object);
        this.common = other.common == null ? null : new ComponentCommon(other.common);
    }

    public Bolt deepCopy() {
        return new Bolt(this);
    }

    public ComponentObject get_bolt_object() {
        return object;
    }

    public void set_bolt_object(ComponentObject object) {
        this.object = object;
    }

    public boolean is_set_bolt_object() {
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
        return o instanceof Bolt && Objects.equals(object, ((Bolt) o).object) && Objects.equals(common, ((Bolt) o).common);
    }

    @Override
    public int hashCode() {
        return Objects.hash(object, common);
    }

    @Override
    public String toString() {
        return "Bolt(common:" + common + ")";
    }

    public void clear() {
        object = null;
        common = null;
    }

    public boolean equals(Bolt that) {
        return equals((Object) that);
    }
}

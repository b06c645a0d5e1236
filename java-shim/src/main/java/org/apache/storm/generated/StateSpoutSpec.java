package org.apache.storm.generated;

import java.util.Objects;

/** A component of a {@link StormTopology}: its implementation object and its common part. */
public class StateSpoutSpec implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private ComponentObject object;
    private ComponentCommon common;

    public StateSpoutSpec() {
    }

    public StateSpoutSpec(ComponentObject object, ComponentCommon common) {
        this.object = object;
        this.common = common;
    }

    public StateSpoutSpec(StateSpoutSpec other) {
        this.object = other.object == null ? null : new ComponentObject(other.object);
        this.common = other.common == null ? null : new ComponentCommon(other.common);
    }

    public StateSpoutSpec deepCopy() {
        return new StateSpoutSpec(this);
    }

    public ComponentObject get_state_spout_object() {
        return object;
    }

    public void set_state_spout_object(ComponentObject object) {
        this.object = object;
    }

    public boolean is_set_state_spout_object() {
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
        return o instanceof StateSpoutSpec && Objects.equals(object, ((StateSpoutSpec) o).object) && Objects.equals(common, ((StateSpoutSpec) o).common);
    }

    @Override
    public int hashCode() {
        return Objects.hash(object, common);
    }

    @Override
    public String toString() {
        return "StateSpoutSpec(common:" + common + ")";
    }
}

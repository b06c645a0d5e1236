package org.apache.storm.generated;

import org.apache.storm.thrift.TUnion;

/**
 * An executor's component-specific statistics: a union of {@link BoltStats} (Thrift field 1)
 * and {@link SpoutStats} (field 2), as in Storm; jars test {@code is_set_spout()} or
 * {@code isSet(2)}.
 */
public class ExecutorSpecificStats extends TUnion<ExecutorSpecificStats, Object>
        implements Cloneable, Comparable<ExecutorSpecificStats> {
    private static final long serialVersionUID = 1L;

    /** Thrift field ids, as in Storm's IDL. */
    static final short BOLT = 1;
    static final short SPOUT = 2;

    public ExecutorSpecificStats() {
        super();
    }

    public ExecutorSpecificStats(ExecutorSpecificStats other) {
        super(other);
    }

    public ExecutorSpecificStats deepCopy() {
        ExecutorSpecificStats copy = new ExecutorSpecificStats();
        if (is_set_bolt()) {
            copy.set_bolt(get_bolt().deepCopy());
        } else if (is_set_spout()) {
            copy.set_spout(get_spout().deepCopy());
        }
        return copy;
    }

    public static ExecutorSpecificStats bolt(BoltStats value) {
        ExecutorSpecificStats x = new ExecutorSpecificStats();
        x.set_bolt(value);
        return x;
    }

    public static ExecutorSpecificStats spout(SpoutStats value) {
        ExecutorSpecificStats x = new ExecutorSpecificStats();
        x.set_spout(value);
        return x;
    }

    public BoltStats get_bolt() {
        return (BoltStats) getFieldValue(BOLT);
    }

    public void set_bolt(BoltStats value) {
        setFieldValue(BOLT, value);
    }

    public SpoutStats get_spout() {
        return (SpoutStats) getFieldValue(SPOUT);
    }

    public void set_spout(SpoutStats value) {
        setFieldValue(SPOUT, value);
    }

    public boolean is_set_bolt() {
        return isSet(BOLT);
    }

    public boolean is_set_spout() {
        return isSet(SPOUT);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ExecutorSpecificStats && equals((ExecutorSpecificStats) other);
    }

    public boolean equals(ExecutorSpecificStats other) {
        return other != null && setFieldId() == other.setFieldId()
                && java.util.Objects.equals(getFieldValue(), other.getFieldValue());
    }

    @Override
    public int compareTo(ExecutorSpecificStats other) {
        int c = Short.compare(setFieldId(), other.setFieldId());
        return c != 0 ? c : ThriftCompare.compare(isSet(), other.isSet(), getFieldValue(), other.getFieldValue());
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(setFieldId(), getFieldValue());
    }
}

package org.apache.storm.thrift;

/**
 * Root of Storm's Thrift unions (relocated Thrift's {@code TUnion}): exactly one field is set,
 * named by its Thrift field id. Egret keeps the value and the id only; there is no Thrift
 * serialization.
 *
 * @param <T> the union type
 * @param <F> the field-id type of the union (unused by Egret)
 */
public abstract class TUnion<T extends TUnion<T, F>, F> implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    private short setFieldId;
    private Object value;

    protected TUnion() {
    }

    protected TUnion(int fieldId, Object value) {
        setFieldValue(fieldId, value);
    }

    protected TUnion(TUnion<T, F> other) {
        this.setFieldId = other.setFieldId;
        this.value = other.value;
    }

    /** Whether the union currently holds the field with this Thrift id. */
    public boolean isSet(int fieldId) {
        return value != null && setFieldId == fieldId;
    }

    /** Whether any field is set. */
    public boolean isSet() {
        return value != null;
    }

    /** The value of the set field, or null. */
    public Object getFieldValue() {
        return value;
    }

    /** The value of the field with this id. */
    public Object getFieldValue(int fieldId) {
        if (!isSet(fieldId)) {
            throw new RuntimeException("Cannot get the value of field " + fieldId + " because union's set field is " + setFieldId);
        }
        return value;
    }

    /** Sets the field with this id (the union's previous field is forgotten). */
    public void setFieldValue(int fieldId, Object value) {
        if (value == null) {
            throw new NullPointerException("a union's value cannot be null");
        }
        this.setFieldId = (short) fieldId;
        this.value = value;
    }

    public void clear() {
        this.setFieldId = 0;
        this.value = null;
    }

    /** The Thrift id of the set field, 0 when none. */
    protected short setFieldId() {
        return value == null ? 0 : setFieldId;
    }

    @Override
    public String toString() {
        return "<" + getClass().getSimpleName() + " " + (value == null ? "" : setFieldId + ":" + value) + ">";
    }
}

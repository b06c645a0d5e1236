package org.apache.storm.generated;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * How a subscription distributes a stream's tuples over the subscriber's tasks: a union
 * with exactly one member set. A fields grouping with an empty list is a global grouping.
 */
public class Grouping implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    /** The members of the union, in Thrift field order. */
    public enum _Fields {
        FIELDS, SHUFFLE, ALL, NONE, DIRECT, CUSTOM_OBJECT, CUSTOM_SERIALIZED, LOCAL_OR_SHUFFLE
    }

    private _Fields setField;
    private Object value;

    public Grouping() {
    }

    public Grouping(_Fields setField, Object value) {
        set(setField, value);
    }

    public Grouping(Grouping other) {
        this.setField = other.setField;
        Object v = other.value;
        if (v instanceof List) {
            v = new ArrayList<>((List<?>) v);
        } else if (v instanceof byte[]) {
            v = ((byte[]) v).clone();
        }
        this.value = v;
    }

    public Grouping deepCopy() {
        return new Grouping(this);
    }

    public static Grouping fields(List<String> value) {
        Grouping g = new Grouping();
        g.set_fields(value);
        return g;
    }

    public static Grouping shuffle(NullStruct value) {
        Grouping g = new Grouping();
        g.set_shuffle(value);
        return g;
    }

    public static Grouping all(NullStruct value) {
        Grouping g = new Grouping();
        g.set_all(value);
        return g;
    }

    public static Grouping none(NullStruct value) {
        Grouping g = new Grouping();
        g.set_none(value);
        return g;
    }

    public static Grouping direct(NullStruct value) {
        Grouping g = new Grouping();
        g.set_direct(value);
        return g;
    }

    public static Grouping custom_object(JavaObject value) {
        Grouping g = new Grouping();
        g.set_custom_object(value);
        return g;
    }

    public static Grouping custom_serialized(ByteBuffer value) {
        Grouping g = new Grouping();
        g.set_custom_serialized(value);
        return g;
    }

    public static Grouping custom_serialized(byte[] value) {
        Grouping g = new Grouping();
        g.set_custom_serialized(value);
        return g;
    }

    public static Grouping local_or_shuffle(NullStruct value) {
        Grouping g = new Grouping();
        g.set_local_or_shuffle(value);
        return g;
    }

    public _Fields getSetField() {
        return setField;
    }

    public Object getFieldValue() {
        return value;
    }

    public boolean isSet() {
        return setField != null;
    }

    private void set(_Fields field, Object v) {
        if (v == null) {
            throw new NullPointerException("Grouping member " + field + " cannot be null");
        }
        this.setField = field;
        this.value = v;
    }

    private Object get(_Fields field) {
        if (setField != field) {
            throw new RuntimeException("Cannot get field '" + field.name().toLowerCase()
                    + "' because union is currently set to " + (setField == null ? "nothing" : setField.name().toLowerCase()));
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    public List<String> get_fields() {
        return (List<String>) get(_Fields.FIELDS);
    }

    public void set_fields(List<String> value) {
        set(_Fields.FIELDS, value);
    }

    public NullStruct get_shuffle() {
        return (NullStruct) get(_Fields.SHUFFLE);
    }

    public void set_shuffle(NullStruct value) {
        set(_Fields.SHUFFLE, value);
    }

    public NullStruct get_all() {
        return (NullStruct) get(_Fields.ALL);
    }

    public void set_all(NullStruct value) {
        set(_Fields.ALL, value);
    }

    public NullStruct get_none() {
        return (NullStruct) get(_Fields.NONE);
    }

    public void set_none(NullStruct value) {
        set(_Fields.NONE, value);
    }

    public NullStruct get_direct() {
        return (NullStruct) get(_Fields.DIRECT);
    }

    public void set_direct(NullStruct value) {
        set(_Fields.DIRECT, value);
    }

    public JavaObject get_custom_object() {
        return (JavaObject) get(_Fields.CUSTOM_OBJECT);
    }

    public void set_custom_object(JavaObject value) {
        set(_Fields.CUSTOM_OBJECT, value);
    }

    public byte[] get_custom_serialized() {
        return (byte[]) get(_Fields.CUSTOM_SERIALIZED);
    }

    public ByteBuffer buffer_for_custom_serialized() {
        return ByteBuffer.wrap(get_custom_serialized());
    }

    public void set_custom_serialized(byte[] value) {
        set(_Fields.CUSTOM_SERIALIZED, value == null ? null : value.clone());
    }

    public void set_custom_serialized(ByteBuffer value) {
        if (value == null) {
            set(_Fields.CUSTOM_SERIALIZED, null);
            return;
        }
        ByteBuffer dup = value.duplicate();
        byte[] bytes = new byte[dup.remaining()];
        dup.get(bytes);
        set(_Fields.CUSTOM_SERIALIZED, bytes);
    }

    public NullStruct get_local_or_shuffle() {
        return (NullStruct) get(_Fields.LOCAL_OR_SHUFFLE);
    }

    public void set_local_or_shuffle(NullStruct value) {
        set(_Fields.LOCAL_OR_SHUFFLE, value);
    }

    public boolean is_set_fields() {
        return setField == _Fields.FIELDS;
    }

    public boolean is_set_shuffle() {
        return setField == _Fields.SHUFFLE;
    }

    public boolean is_set_all() {
        return setField == _Fields.ALL;
    }

    public boolean is_set_none() {
        return setField == _Fields.NONE;
    }

    public boolean is_set_direct() {
        return setField == _Fields.DIRECT;
    }

    public boolean is_set_custom_object() {
        return setField == _Fields.CUSTOM_OBJECT;
    }

    public boolean is_set_custom_serialized() {
        return setField == _Fields.CUSTOM_SERIALIZED;
    }

    public boolean is_set_local_or_shuffle() {
        return setField == _Fields.LOCAL_OR_SHUFFLE;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Grouping && equals((Grouping) other);
    }

    public boolean equals(Grouping other) {
        if (other == null || setField != other.setField) {
            return false;
        }
        if (value instanceof byte[] && other.value instanceof byte[]) {
            return Arrays.equals((byte[]) value, (byte[]) other.value);
        }
        return Objects.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(setField);
        return 31 * h + (value instanceof byte[] ? Arrays.hashCode((byte[]) value) : Objects.hashCode(value));
    }

    @Override
    public String toString() {
        String v = value instanceof byte[] ? ("<" + ((byte[]) value).length + " bytes>") : String.valueOf(value);
        return "<Grouping " + (setField == null ? "unset" : setField.name().toLowerCase()) + ":" + v + ">";
    }
}

package org.apache.storm.generated;

import java.util.Objects;

/** A constructor argument of a {@link JavaObject}: one of int, long, string, bool, binary, double. */
public class JavaObjectArg implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private Object value;

    public JavaObjectArg() {
    }

    public JavaObjectArg(JavaObjectArg other) {
        this.value = other.value;
    }

    public static JavaObjectArg int_arg(int v) {
        return of(v);
    }

    public static JavaObjectArg long_arg(long v) {
        return of(v);
    }

    public static JavaObjectArg string_arg(String v) {
        return of(v);
    }

    public static JavaObjectArg bool_arg(boolean v) {
        return of(v);
    }

    public static JavaObjectArg binary_arg(byte[] v) {
        return of(v.clone());
    }

    public static JavaObjectArg double_arg(double v) {
        return of(v);
    }

    private static JavaObjectArg of(Object v) {
        JavaObjectArg a = new JavaObjectArg();
        a.value = v;
        return a;
    }

    public Object getFieldValue() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JavaObjectArg && Objects.equals(value, ((JavaObjectArg) o).value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return "<JavaObjectArg " + value + ">";
    }
}

package org.apache.storm.generated;

import java.util.Objects;
import org.apache.storm.thrift.TException;

/** Mirrors Storm's Thrift exception of the same name: a single {@code msg} field. */
public class NotAliveException extends TException implements java.io.Serializable, Cloneable, Comparable<NotAliveException> {
    private static final long serialVersionUID = 1L;

    private String msg;

    public NotAliveException() {
    }

    public NotAliveException(String msg) {
        this.msg = msg;
    }

    public NotAliveException(NotAliveException other) {
        this.msg = other.msg;
    }

    public NotAliveException deepCopy() {
        return new NotAliveException(this);
    }

    public void clear() {
        this.msg = null;
    }

    public String get_msg() {
        return msg;
    }

    public void set_msg(String msg) {
        this.msg = msg;
    }

    public void unset_msg() {
        this.msg = null;
    }

    public boolean is_set_msg() {
        return msg != null;
    }

    public void set_msg_isSet(boolean value) {
        if (!value) {
            this.msg = null;
        }
    }

    /** Thrift's check of required fields: NotAliveException has none. */
    public void validate() throws TException {
    }

    @Override
    public String getMessage() {
        return msg;
    }

    @Override
    public boolean equals(Object that) {
        return that instanceof NotAliveException && equals((NotAliveException) that);
    }

    public boolean equals(NotAliveException that) {
        return that != null && Objects.equals(msg, that.msg);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(msg);
    }

    @Override
    public int compareTo(NotAliveException other) {
        return java.util.Comparator.nullsFirst(java.util.Comparator.<String>naturalOrder()).compare(msg, other.msg);
    }

    @Override
    public String toString() {
        return "NotAliveException(msg:" + msg + ")";
    }
}

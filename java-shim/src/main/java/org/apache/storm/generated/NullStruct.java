package org.apache.storm.generated;

/** Storm's empty Thrift struct, the payload of argument-less grouping kinds. */
public class NullStruct implements java.io.Serializable, Cloneable, Comparable<NullStruct> {
    private static final long serialVersionUID = 1L;

    public NullStruct() {
    }

    public NullStruct(NullStruct other) {
    }

    public NullStruct deepCopy() {
        return new NullStruct();
    }

    public void clear() {
    }

    @Override
    public boolean equals(Object that) {
        return that instanceof NullStruct;
    }

    public boolean equals(NullStruct that) {
        return that != null;
    }

    @Override
    public int hashCode() {
        return 0;
    }

    @Override
    public int compareTo(NullStruct other) {
        return 0;
    }

    @Override
    public String toString() {
        return "NullStruct()";
    }
}

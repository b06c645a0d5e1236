package org.apache.storm.testing;

import java.io.Serializable;

/** A serializable pair of ints for serialization tests (equal when both fields are). */
public class TestSerObject implements Serializable {
    private static final long serialVersionUID = 1L;
    public int f1;
    public int f2;

    public TestSerObject(int f1, int f2) {
        this.f1 = f1;
        this.f2 = f2;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TestSerObject)) {
            return false;
        }
        TestSerObject other = (TestSerObject) o;
        return f1 == other.f1 && f2 == other.f2;
    }

    @Override
    public int hashCode() {
        return 31 * f1 + f2;
    }
}

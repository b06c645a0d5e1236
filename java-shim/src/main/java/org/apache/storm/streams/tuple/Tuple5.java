package org.apache.storm.streams.tuple;

import java.util.Objects;

/** 5 values (a stream's element, e.g. from {@code TupleValueMappers.of}). */
public class Tuple5<T1, T2, T3, T4, T5> {
    public final T1 value1;
    public final T2 value2;
    public final T3 value3;
    public final T4 value4;
    public final T5 value5;

    public Tuple5(T1 value1, T2 value2, T3 value3, T4 value4, T5 value5) {
        this.value1 = value1;
        this.value2 = value2;
        this.value3 = value3;
        this.value4 = value4;
        this.value5 = value5;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        Tuple5<?, ?, ?, ?, ?> that = (Tuple5<?, ?, ?, ?, ?>) o;
        return Objects.equals(value1, that.value1) && Objects.equals(value2, that.value2) && Objects.equals(value3, that.value3) && Objects.equals(value4, that.value4) && Objects.equals(value5, that.value5);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value1, value2, value3, value4, value5);
    }

    @Override
    public String toString() {
        return "(" + value1 + ", " + value2 + ", " + value3 + ", " + value4 + ", " + value5 + ")";
    }
}

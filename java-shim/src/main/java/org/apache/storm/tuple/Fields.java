package org.apache.storm.tuple;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An ordered list of unique field names, with a name-to-position index.
 *
 * <p>Immutable once built; serializable because components hold instances of it.
 */
public class Fields implements Iterable<String>, Serializable {
    private static final long serialVersionUID = -3377931843059975424L;

    private final List<String> fields;
    private final Map<String, Integer> index;

    public Fields(String... fields) {
        this(java.util.Arrays.asList(fields));
    }

    public Fields(List<String> fields) {
        this.fields = new ArrayList<>(fields.size());
        this.index = new HashMap<>(fields.size() * 2);
        for (String field : fields) {
            if (this.index.containsKey(field)) {
                throw new IllegalArgumentException(String.format("duplicate field '%s'", field));
            }
            this.index.put(field, this.fields.size());
            this.fields.add(field);
        }
    }

    /**
     * Selects the values of {@code selector}'s fields out of {@code tuple}, whose values
     * follow this field order.
     *
     * @throws IllegalArgumentException if a selected field is not one of these fields
     */
    public List<Object> select(Fields selector, List<Object> tuple) {
        List<Object> ret = new ArrayList<>(selector.size());
        for (String s : selector) {
            ret.add(tuple.get(fieldIndex(s)));
        }
        return ret;
    }

    public List<String> toList() {
        return new ArrayList<>(fields);
    }

    public int size() {
        return fields.size();
    }

    public String get(int index) {
        return fields.get(index);
    }

    @Override
    public Iterator<String> iterator() {
        return Collections.unmodifiableList(fields).iterator();
    }

    /**
     * Position of a field.
     *
     * @throws IllegalArgumentException if the field does not exist
     */
    public int fieldIndex(String field) {
        Integer ret = index.get(field);
        if (ret == null) {
            throw new IllegalArgumentException(field + " does not exist");
        }
        return ret;
    }

    public boolean contains(String field) {
        return index.containsKey(field);
    }

    @Override
    public String toString() {
        return fields.toString();
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (other instanceof Fields) {
            return fields.equals(((Fields) other).fields);
        }
        return false;
    }

    @Override
    public int hashCode() {
        return fields.hashCode();
    }
}

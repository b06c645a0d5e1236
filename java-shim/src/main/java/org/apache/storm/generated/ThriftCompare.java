package org.apache.storm.generated;

import java.util.Collection;
import java.util.Map;

/** Thrift's struct ordering, shared by the generated structs: set before unset, then by value. */
final class ThriftCompare {
    private ThriftCompare() {
    }

    @SuppressWarnings("unchecked")
    static int compare(boolean aSet, boolean bSet, Object a, Object b) {
        int c = Boolean.compare(aSet, bSet);
        if (c != 0 || !aSet) {
            return c;
        }
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a instanceof Collection && b instanceof Collection) {
            c = Integer.compare(((Collection<?>) a).size(), ((Collection<?>) b).size());
            return c != 0 ? c : a.toString().compareTo(b.toString());
        }
        if (a instanceof Map && b instanceof Map) {
            c = Integer.compare(((Map<?, ?>) a).size(), ((Map<?, ?>) b).size());
            return c != 0 ? c : a.toString().compareTo(b.toString());
        }
        if (a instanceof Comparable && a.getClass() == b.getClass()) {
            return ((Comparable<Object>) a).compareTo(b);
        }
        return a.toString().compareTo(b.toString());
    }
}

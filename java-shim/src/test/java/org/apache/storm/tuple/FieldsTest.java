package org.apache.storm.tuple;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class FieldsTest {
    @Test
    void indexesFieldsInOrder() {
        Fields f = new Fields("a", "b", "c");
        assertEquals(3, f.size());
        assertEquals(0, f.fieldIndex("a"));
        assertEquals(2, f.fieldIndex("c"));
        assertEquals("b", f.get(1));
        assertEquals(List.of("a", "b", "c"), f.toList());
        assertEquals("[a, b, c]", f.toString());
    }

    @Test
    void containsAndMissingField() {
        Fields f = new Fields(Arrays.asList("word", "count"));
        assertTrue(f.contains("word"));
        assertFalse(f.contains("nope"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.fieldIndex("nope"));
        assertEquals("nope does not exist", e.getMessage());
    }

    @Test
    void selectPicksValuesInSelectorOrder() {
        Fields f = new Fields("a", "b", "c");
        assertEquals(List.of(3, 1), f.select(new Fields("c", "a"), Arrays.asList(1, 2, 3)));
    }

    @Test
    void duplicateFieldIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Fields("a", "b", "a"));
        assertEquals("duplicate field 'a'", e.getMessage());
    }

    @Test
    void equalityFollowsTheList() {
        assertEquals(new Fields("a", "b"), new Fields(List.of("a", "b")));
        assertEquals(new Fields("a", "b").hashCode(), new Fields("a", "b").hashCode());
        assertNotEquals(new Fields("a", "b"), new Fields("b", "a"));
    }

    @Test
    void survivesJavaSerialization() {
        Fields f = new Fields("x", "y");
        Fields back = Utils.javaDeserialize(Utils.javaSerialize(f), Fields.class);
        assertEquals(f, back);
        assertEquals(1, back.fieldIndex("y"));
    }

    @Test
    void iteratorCannotMutate() {
        Fields f = new Fields("x");
        var it = f.iterator();
        it.next();
        assertThrows(UnsupportedOperationException.class, it::remove);
    }

    @Test
    void valuesIsAList() {
        Values v = new Values("a", 1, null);
        assertEquals(3, v.size());
        assertEquals(Arrays.asList("a", 1, null), v);
    }
}

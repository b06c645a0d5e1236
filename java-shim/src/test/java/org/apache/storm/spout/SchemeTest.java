package org.apache.storm.spout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/** Storm's schemes: raw bytes, a Scheme wrapped as a MultiScheme, output fields. */
class SchemeTest {
    /** A scheme of ours: UTF-8 text as field "line", the message "skip" yielding nothing. */
    static final class LineScheme implements Scheme {
        @Override
        public List<Object> deserialize(ByteBuffer ser) {
            String s = StandardCharsets.UTF_8.decode(ser).toString();
            return s.equals("skip") ? null : Utils.tuple(s);
        }

        @Override
        public Fields getOutputFields() {
            return new Fields("line");
        }
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void rawSchemeYieldsTheRemainingBytes() {
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {9, 1, 2, 3});
        buf.get();
        List<Object> values = new RawScheme().deserialize(buf);
        assertEquals(1, values.size());
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) values.get(0));
        assertEquals(List.of("bytes"), new RawScheme().getOutputFields().toList());
        values.add("mutable, as Storm's Utils.tuple");
    }

    @Test
    void rawMultiSchemeYieldsOneTupleOfTheBytes() {
        Iterator<List<Object>> it = new RawMultiScheme().deserialize(bytes("ab")).iterator();
        assertArrayEquals("ab".getBytes(StandardCharsets.UTF_8), (byte[]) it.next().get(0));
        assertEquals(false, it.hasNext());
        assertEquals(List.of("bytes"), new RawMultiScheme().getOutputFields().toList());
    }

    @Test
    void schemeAsMultiSchemeWrapsOneTupleAndKeepsNull() {
        SchemeAsMultiScheme multi = new SchemeAsMultiScheme(new LineScheme());
        List<List<Object>> out = new ArrayList<>();
        multi.deserialize(bytes("hello")).forEach(out::add);
        assertEquals(List.of(List.of("hello")), out);
        assertNull(multi.deserialize(bytes("skip")), "a scheme's null stays null");
        assertEquals(List.of("line"), multi.getOutputFields().toList());
        assertEquals(LineScheme.class, multi.scheme.getClass());
    }

    @Test
    void schemesAreSerializable() throws Exception {
        SchemeAsMultiScheme copy = (SchemeAsMultiScheme) Utils.javaDeserialize(
                Utils.javaSerialize(new SchemeAsMultiScheme(new RawScheme())), Object.class);
        assertEquals(RawScheme.class, copy.scheme.getClass());
    }
}

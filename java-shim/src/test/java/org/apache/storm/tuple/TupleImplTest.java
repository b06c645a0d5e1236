package org.apache.storm.tuple;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.utils.TupleUtils;
import org.junit.jupiter.api.Test;

class TupleImplTest {
    private static GeneralTopologyContext context() {
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        Map<String, Fields> spout = new HashMap<>();
        spout.put("default", new Fields("s", "i", "l", "b", "sh", "by", "d", "f", "bin"));
        fields.put("spout", spout);
        Map<String, Fields> system = new HashMap<>();
        system.put("__tick", new Fields("rate_secs"));
        fields.put("__system", system);
        Map<Integer, String> t2c = new HashMap<>();
        t2c.put(3, "spout");
        Map<String, List<Integer>> c2t = new HashMap<>();
        c2t.put("spout", Arrays.asList(3));
        return new GeneralTopologyContext(null, new HashMap<>(), t2c, c2t, fields, "topo-1");
    }

    private static TupleImpl sample() {
        List<Object> values = Arrays.asList("str", 1, 2L, true, (short) 3, (byte) 4, 5.5d, 6.5f, new byte[] {7});
        return new TupleImpl(context(), values, "spout", 3, "default");
    }

    @Test
    void accessorsByIndexAndByField() {
        TupleImpl t = sample();
        assertEquals(9, t.size());
        assertEquals("str", t.getString(0));
        assertEquals(Integer.valueOf(1), t.getInteger(1));
        assertEquals(Long.valueOf(2L), t.getLong(2));
        assertEquals(Boolean.TRUE, t.getBoolean(3));
        assertEquals(Short.valueOf((short) 3), t.getShort(4));
        assertEquals(Byte.valueOf((byte) 4), t.getByte(5));
        assertEquals(Double.valueOf(5.5d), t.getDouble(6));
        assertEquals(Float.valueOf(6.5f), t.getFloat(7));
        assertArrayEquals(new byte[] {7}, t.getBinary(8));
        assertEquals("str", t.getStringByField("s"));
        assertEquals(Integer.valueOf(1), t.getIntegerByField("i"));
        assertEquals(Long.valueOf(2L), t.getLongByField("l"));
        assertEquals(Boolean.TRUE, t.getBooleanByField("b"));
        assertEquals(Short.valueOf((short) 3), t.getShortByField("sh"));
        assertEquals(Byte.valueOf((byte) 4), t.getByteByField("by"));
        assertEquals(Double.valueOf(5.5d), t.getDoubleByField("d"));
        assertEquals(Float.valueOf(6.5f), t.getFloatByField("f"));
        assertArrayEquals(new byte[] {7}, t.getBinaryByField("bin"));
        assertEquals("str", t.getValueByField("s"));
        assertEquals(2, t.fieldIndex("l"));
        assertTrue(t.contains("d"));
        assertFalse(t.contains("zz"));
        assertEquals(Arrays.asList(2L, "str"), t.select(new Fields("l", "s")));
        assertEquals(new Fields("s", "i", "l", "b", "sh", "by", "d", "f", "bin"), t.getFields());
        assertThrows(ClassCastException.class, () -> t.getInteger(0));
    }

    @Test
    void sourceAccessors() {
        TupleImpl t = sample();
        assertEquals("spout", t.getSourceComponent());
        assertEquals(3, t.getSourceTask());
        assertEquals("default", t.getSourceStreamId());
        assertEquals(new GlobalStreamId("spout", "default"), t.getSourceGlobalStreamId());
        assertEquals("{}", t.getMessageId().toString());
        assertEquals("topo-1", t.getContext().getStormId());
    }

    @Test
    void toStringLooksLikeStorms() {
        TupleImpl t = new TupleImpl(context(), Arrays.asList("a", 1, 2L, true, (short) 3, (byte) 4, 5.5d, 6.5f, null),
                "spout", 3, "default");
        assertEquals("source: spout:3, stream: default, id: {}, [a, 1, 2, true, 3, 4, 5.5, 6.5, null]"
                + " PROC_START_TIME(sampled): null EXEC_START_TIME(sampled): null", t.toString());
    }

    @Test
    void equalityIsIdentity() {
        TupleImpl a = sample();
        TupleImpl b = sample();
        assertNotEquals(a, b);
        assertEquals(a, a);
    }

    @Test
    void tickTuplesAreRecognized() {
        TupleImpl tick = new TupleImpl(context(), Arrays.asList((Object) 5), "__system", -1, "__tick");
        assertTrue(TupleUtils.isTick(tick));
        assertEquals(Integer.valueOf(5), tick.getIntegerByField("rate_secs"));
        assertFalse(TupleUtils.isTick(sample()));
    }

    @Test
    void chooseTaskIndexIsFloorModOfDeepHashCode() {
        List<Object> keys = Arrays.asList("a", 7, new int[] {1, 2});
        int expected = Math.floorMod(Arrays.deepHashCode(keys.toArray()), 7);
        assertEquals(expected, TupleUtils.chooseTaskIndex(keys, 7));
    }
}

package org.apache.storm.serialization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.GeneralTopologyContext;
import org.apache.storm.testing.TestKryoDecorator;
import org.apache.storm.testing.TestSerObject;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.MessageId;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class KryoTupleSerializationTest {

    private static GeneralTopologyContext context() {
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        fields.put("spout", new HashMap<>(Map.of("s1", new Fields("a", "b"))));
        return new GeneralTopologyContext(null, new HashMap<>(), new HashMap<>(Map.of(4, "spout")),
                new HashMap<>(Map.of("spout", List.of(4))), fields, "topo");
    }

    private static Map<String, Object> conf() {
        Map<String, Object> conf = Utils.readDefaultConfig();
        conf.put(Config.TOPOLOGY_KRYO_DECORATORS, List.of(TestKryoDecorator.class.getName()));
        conf.put(Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION, false);
        return conf;
    }

    @Test
    void aTupleRoundTripsWithItsStreamTaskAnchorsAndValues() {
        GeneralTopologyContext ctx = context();
        MessageId id = MessageId.makeId(new HashMap<>(Map.of(11L, 22L)));
        TupleImpl t = new TupleImpl(ctx, new Values("x", new TestSerObject(1, 2)), "spout", 4, "s1", id);
        byte[] bytes = new KryoTupleSerializer(conf(), ctx).serialize(t);
        Tuple back = new KryoTupleDeserializer(conf(), ctx).deserialize(bytes);
        assertEquals("spout", back.getSourceComponent());
        assertEquals(4, back.getSourceTask());
        assertEquals("s1", back.getSourceStreamId());
        assertEquals(id, back.getMessageId());
        assertEquals(Arrays.asList("x", new TestSerObject(1, 2)), back.getValues());
        assertEquals(new Fields("a", "b").toList(), back.getFields().toList());
    }

    @Test
    void valuesAndObjectsRoundTrip() {
        KryoValuesSerializer ser = new KryoValuesSerializer(conf());
        KryoValuesDeserializer de = new KryoValuesDeserializer(conf());
        List<Object> values = Arrays.asList(1, "two", 3L, null, new TestSerObject(5, 6));
        assertEquals(values, de.deserialize(ser.serialize(values)));
        assertEquals(new TestSerObject(7, 8), de.deserializeObject(ser.serializeObject(new TestSerObject(7, 8))));
    }

    @Test
    void aTupleOfAnUnknownTaskIsRefused() {
        GeneralTopologyContext ctx = context();
        TupleImpl t = new TupleImpl(ctx, new Values("x", "y"), "spout", 4, "s1");
        byte[] bytes = new KryoTupleSerializer(conf(), ctx).serialize(t);
        GeneralTopologyContext other = new GeneralTopologyContext(null, new HashMap<>(), new HashMap<>(),
                new HashMap<>(), new HashMap<>(), "other");
        assertThrows(IllegalArgumentException.class, () -> new KryoTupleDeserializer(conf(), other).deserialize(bytes));
    }
}

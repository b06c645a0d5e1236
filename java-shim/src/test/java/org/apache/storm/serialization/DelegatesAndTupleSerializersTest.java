package org.apache.storm.serialization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.security.serialization.BlowfishTupleSerializer;
import org.apache.storm.utils.ListDelegate;
import org.junit.jupiter.api.Test;

/** Round trips of the delegates and tuple serializers beyond what Storm's own tests check. */
class DelegatesAndTupleSerializersTest {
    @Test
    void gzippedJavaSerializationRoundTrips() {
        GzipSerializationDelegate d = new GzipSerializationDelegate();
        byte[] bytes = d.serialize(new HashMap<>(Map.of("a", 1)));
        assertTrue(GzipBridgeThriftSerializationDelegate.isGzipped(bytes));
        assertEquals(Map.of("a", 1), d.deserialize(bytes, HashMap.class));
        assertThrows(IllegalArgumentException.class, () -> new ThriftSerializationDelegate().serialize("not thrift"));
    }

    @Test
    void blowfishEncryptsTheValuesAndReadsThemBack() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(BlowfishTupleSerializer.SECRET_KEY, "0123456789abcdef");
        conf.put("topology.tuple.serializer", BlowfishTupleSerializer.class.getName());
        Kryo kryo = SerializationFactory.getKryo(conf);
        ListDelegate values = new ListDelegate();
        values.setDelegate(Arrays.asList("secret-word", 42));
        Output out = new Output(1024, -1);
        kryo.writeObject(out, values);
        byte[] bytes = out.toBytes();
        assertFalse(new String(bytes, StandardCharsets.ISO_8859_1).contains("secret-word"));
        ListDelegate back = kryo.readObject(new Input(bytes), ListDelegate.class);
        assertEquals(Arrays.asList("secret-word", 42), back.getDelegate());
    }

    @Test
    void blowfishWithoutAKeyOrWithABadOneFails() {
        RuntimeException none = assertThrows(RuntimeException.class, () -> new BlowfishTupleSerializer(new Kryo(), new HashMap<>()));
        assertTrue(none.getMessage().contains("Blowfish encryption key not specified"), none.getMessage());
        Map<String, Object> conf = new HashMap<>();
        conf.put(BlowfishTupleSerializer.SECRET_KEY, "not hex");
        RuntimeException bad = assertThrows(RuntimeException.class, () -> new BlowfishTupleSerializer(new Kryo(), conf));
        assertTrue(bad.getMessage().contains("Blowfish encryption key invalid"), bad.getMessage());
    }
}

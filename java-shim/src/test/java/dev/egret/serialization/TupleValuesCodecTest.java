package dev.egret.serialization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.Serializable;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.Test;

class TupleValuesCodecTest {
    /** A user type: registered by name it uses Kryo's FieldSerializer. */
    public static final class Point {
        int x;
        int y;

        public Point() {
        }

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point && ((Point) o).x == x && ((Point) o).y == y;
        }

        @Override
        public int hashCode() {
            return Objects.hash(x, y);
        }
    }

    /** Writes a Point as "x,y" to prove the custom serializer was used. */
    public static final class PointAsText extends Serializer<Point> {
        static int writes;

        @Override
        public void write(Kryo kryo, Output output, Point p) {
            writes++;
            output.writeString(p.x + "," + p.y);
        }

        @Override
        public Point read(Kryo kryo, Input input, Class<? extends Point> type) {
            String[] parts = input.readString().split(",");
            return new Point(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        }
    }

    /** Serializable but never registered. */
    public static final class Money implements Serializable {
        final long cents;

        Money(long cents) {
            this.cents = cents;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Money && ((Money) o).cents == cents;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(cents);
        }
    }

    private static List<Object> roundTrip(Map<String, Object> conf, List<Object> values) {
        TupleValuesCodec writer = new TupleValuesCodec(conf);
        TupleValuesCodec reader = new TupleValuesCodec(conf);
        return reader.deserialize(writer.serialize(values));
    }

    @Test
    void stormDefaultTypesRoundTrip() {
        HashMap<String, Object> map = new HashMap<>();
        map.put("a", 1);
        map.put("b", new ArrayList<>(Arrays.asList(1L, 2L)));
        HashSet<String> set = new HashSet<>(Arrays.asList("x", "y"));
        ArrayList<Object> list = new ArrayList<>(Arrays.asList("s", 3, 4.5));
        List<Object> values = Arrays.asList("str", 42, 7L, 2.5d, true, new ArrayList<>(list), map, set,
                new BigInteger("123456789012345678901234567890"), new Values("v", 1), (short) 3, (byte) 4, 1.5f,
                'c', null);
        List<Object> back = roundTrip(new HashMap<>(), values);
        assertEquals(values, back);
        assertEquals(Values.class, back.get(9).getClass());
        assertEquals(HashMap.class, back.get(6).getClass());
    }

    @Test
    void byteArraysRoundTrip() {
        List<Object> back = roundTrip(new HashMap<>(), Arrays.asList((Object) new byte[] {1, 2, 3}));
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) back.get(0));
    }

    @Test
    void classRegisteredByNameRoundTrips() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.kryo.register", Arrays.asList(Point.class.getName()));
        assertEquals(Arrays.asList(new Point(1, 2)), roundTrip(conf, Arrays.asList(new Point(1, 2))));
    }

    @Test
    void classRegisteredWithASerializerUsesIt() {
        Map<String, Object> conf = new HashMap<>();
        Map<String, Object> entry = new HashMap<>();
        entry.put(Point.class.getName(), PointAsText.class.getName());
        conf.put("topology.kryo.register", Arrays.asList(entry));
        int before = PointAsText.writes;
        assertEquals(Arrays.asList(new Point(3, 4)), roundTrip(conf, Arrays.asList(new Point(3, 4))));
        assertEquals(before + 1, PointAsText.writes);
    }

    @Test
    void unregisteredClassFailsTheEmitNamingTheClass() {
        TupleValuesCodec codec = new TupleValuesCodec(new HashMap<>());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.serialize(Arrays.asList("ok", new Money(5))));
        assertTrue(e.getMessage().contains("Class is not registered: " + Money.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("topology.kryo.register"), e.getMessage());
        // The codec stays usable after a failure.
        assertEquals(Arrays.asList("after"), codec.deserialize(codec.serialize(Arrays.asList("after"))));
    }

    @Test
    void javaSerializationFallbackRoundTripsSerializableClasses() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.fall.back.on.java.serialization", true);
        assertEquals(Arrays.asList(new Money(99), "x"), roundTrip(conf, Arrays.asList(new Money(99), "x")));
    }

    @Test
    void missingRegisteredClassFailsUnlessSkipped() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.kryo.register", Arrays.asList("com.acme.DoesNotExist"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TupleValuesCodec(conf));
        assertTrue(e.getMessage().contains("com.acme.DoesNotExist"));
        conf.put("topology.skip.missing.kryo.registrations", true);
        assertEquals(Arrays.asList("ok"), roundTrip(conf, Arrays.asList("ok")));
    }
}

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

    private static Map<String, Object> workers(int n) {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.workers", n);
        return conf;
    }

    @Test
    void unregisteredClassFailsTheEmitNamingTheClass() {
        // Several workers: Storm serializes between them, so registration is required.
        TupleValuesCodec codec = new TupleValuesCodec(workers(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.serialize(Arrays.asList("ok", new Money(5))));
        assertTrue(e.getMessage().contains("Class is not registered: " + Money.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("topology.kryo.register"), e.getMessage());
        // The codec stays usable after a failure.
        assertEquals(Arrays.asList("after"), codec.deserialize(codec.serialize(Arrays.asList("after"))));
    }

    @Test
    void unregisteredNonSerializableClassFailsWithSeveralWorkersEvenWithTheFallback() {
        Map<String, Object> conf = workers(3);
        conf.put("topology.fall.back.on.java.serialization", true);
        TupleValuesCodec codec = new TupleValuesCodec(conf);
        assertThrows(IllegalArgumentException.class, () -> codec.serialize(Arrays.asList(new Point(1, 2))));
    }

    /** Not Serializable, no no-arg constructor, and holding another unregistered class. */
    public static final class Pair {
        final Point left;
        final String right;

        Pair(Point left, String right) {
            this.left = left;
            this.right = right;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Pair && ((Pair) o).left.equals(left) && ((Pair) o).right.equals(right);
        }

        @Override
        public int hashCode() {
            return Objects.hash(left, right);
        }
    }

    @Test
    void singleWorkerRoundTripsUnregisteredSerializableAndPlainClasses() {
        for (Object workers : Arrays.asList(1, 1L, "1")) {
            Map<String, Object> conf = new HashMap<>();
            conf.put("topology.workers", workers);
            conf.put("topology.fall.back.on.java.serialization", false);
            List<Object> values = Arrays.asList(new Money(7), new Point(1, 2), new Pair(new Point(3, 4), "r"), "s");
            List<Object> back = roundTrip(conf, values);
            assertEquals(values, back);
            assertEquals(Pair.class, back.get(2).getClass());
        }
    }

    @Test
    void singleWorkerIsStormsDefaultWhenWorkersIsUnset() {
        assertEquals(Arrays.asList(new Money(1)), roundTrip(new HashMap<>(), Arrays.asList(new Money(1))));
    }

    @Test
    void singleWorkerWithTheFallbackStillRoundTripsNonSerializableClasses() {
        Map<String, Object> conf = workers(1);
        conf.put("topology.fall.back.on.java.serialization", true);
        assertEquals(Arrays.asList(new Point(5, 6)), roundTrip(conf, Arrays.asList(new Point(5, 6))));
    }

    @Test
    void singleWorkerUsesJavaSerializationForSerializableAndKryoForOthers() {
        Kryo k = org.apache.storm.serialization.SerializationFactory.getKryo(workers(1));
        assertEquals(org.apache.storm.serialization.SerializableSerializer.class,
                k.getRegistration(Money.class).getSerializer().getClass());
        assertEquals(com.esotericsoftware.kryo.serializers.FieldSerializer.class,
                k.getRegistration(Point.class).getSerializer().getClass());
        // Registered classes keep their ids and serializers.
        Map<String, Object> conf = workers(1);
        conf.put("topology.kryo.register", Arrays.asList(Money.class.getName()));
        Kryo registered = org.apache.storm.serialization.SerializationFactory.getKryo(conf);
        assertTrue(registered.getRegistration(Money.class).getId() >= 0);
        assertTrue(k.getRegistration(Money.class).getId() < 0, "written by name");
    }

    @Test
    void javaSerializationFallbackRoundTripsSerializableClasses() {
        Map<String, Object> conf = workers(2);
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

    @Test
    void valuesAreReadWhereTheyLieInALargerArray() {
        TupleValuesCodec codec = new TupleValuesCodec(new HashMap<>());
        byte[] first = codec.serialize(Arrays.asList("hello", 42, new byte[] {9, 8}));
        byte[] second = codec.serialize(Arrays.asList("x"));
        // A frame holding other bytes around the tuples, as an inbound frame of several does.
        byte[] frame = new byte[first.length + second.length + 10];
        Arrays.fill(frame, (byte) 0x7f);
        System.arraycopy(first, 0, frame, 5, first.length);
        System.arraycopy(second, 0, frame, 5 + first.length, second.length);
        List<Object> back = codec.deserialize(frame, 5, first.length);
        assertEquals("hello", back.get(0));
        assertEquals(42, back.get(1));
        assertArrayEquals(new byte[] {9, 8}, (byte[]) back.get(2));
        assertEquals(Arrays.asList("x"), codec.deserialize(frame, 5 + first.length, second.length));
        // Kryo copied what it read: the frame can be reused.
        Arrays.fill(frame, (byte) 0);
        assertArrayEquals(new byte[] {9, 8}, (byte[]) back.get(2));
        // Values cut short are refused with a message naming the problem.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.deserialize(first, 0, first.length - 2));
        assertTrue(e.getMessage().contains("Could not deserialize tuple values"), e.getMessage());
        String big = "y".repeat(10_000);
        byte[] bigBytes = codec.serialize(Arrays.asList(big));
        assertEquals(Arrays.asList(big), codec.deserialize(bigBytes, 0, bigBytes.length));
    }
}

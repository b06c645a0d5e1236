package org.apache.storm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Constructor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.junit.jupiter.api.Test;

/** The durable state's codec: what the checkpoint store gets back is the map that was stored. */
class DurableBackingTest {
    private static Object newInstance(String name, Class<?>[] types, Object... args) throws Exception {
        Constructor<?> c = Class.forName(name).getDeclaredConstructor(types);
        c.setAccessible(true);
        return c.newInstance(args);
    }

    @Test
    void aWindowedExecutorsStateRoundTripsWithJavaFallbackOnSeveralWorkers() throws Exception {
        // The conditions under which Kryo would Java-serialize anything unregistered.
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.fall.back.on.java.serialization", true);
        conf.put("topology.workers", 2);
        Object key = newInstance("org.apache.storm.topology.StatefulWindowedBoltExecutor$TaskStream",
                new Class<?>[] {int.class, GlobalStreamId.class}, 3, new GlobalStreamId("spout", "default"));
        Object value = newInstance("org.apache.storm.topology.StatefulWindowedBoltExecutor$WindowState",
                new Class<?>[] {long.class, long.class}, 17L, 21L);
        Map<Object, Object> state = new HashMap<>();
        state.put(key, value);
        state.put("sum", 12345L);

        DurableBacking.Codec serializer = DurableBacking.serializer(conf, null);
        byte[] bytes = DurableBacking.encode(serializer, state);
        assertEquals(state, DurableBacking.decode(DurableBacking.serializer(conf, null), bytes, "w-1"));
    }

    @Test
    void aTruncatedStateIsRefusedNamingIt() {
        DurableBacking.Codec serializer = DurableBacking.serializer(new HashMap<>(), null);
        Map<Object, Object> state = new HashMap<>();
        state.put("sum", 5L);
        byte[] bytes = DurableBacking.encode(serializer, state);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> DurableBacking.decode(serializer, Arrays.copyOf(bytes, bytes.length - 3), "bolt-2"));
        assertEquals(true, e.getMessage().contains("bolt-2"), e.getMessage());
    }
}

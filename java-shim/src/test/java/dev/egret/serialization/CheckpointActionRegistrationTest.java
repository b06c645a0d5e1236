package dev.egret.serialization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.serialization.SerializationFactory;
import org.apache.storm.spout.CheckPointState;
import org.junit.jupiter.api.Test;

/** Checkpoint tuples ({@code [txid, action]}) cross JVMs in multi-worker stateful topologies. */
class CheckpointActionRegistrationTest {
    private static Map<String, Object> workers(int n) {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.workers", n);
        return conf;
    }

    @Test
    void checkpointTuplesRoundTripWithSeveralWorkersWithoutUserRegistration() {
        TupleValuesCodec writer = new TupleValuesCodec(workers(2));
        TupleValuesCodec reader = new TupleValuesCodec(workers(2));
        for (CheckPointState.Action action : CheckPointState.Action.values()) {
            List<Object> values = Arrays.asList(7L, action);
            assertEquals(values, reader.deserialize(writer.serialize(values)));
        }
    }

    @Test
    void theActionHasAFixedIdAndListingItAgainChangesNoId() {
        Kryo plain = SerializationFactory.getKryo(workers(2));
        int id = plain.getRegistration(CheckPointState.Action.class).getId();
        assertTrue(id >= 0, "registered with an id, not written by name");

        Map<String, Object> conf = workers(2);
        conf.put("topology.kryo.register",
                Arrays.asList(CheckPointState.Action.class.getName(), "java.util.TreeMap"));
        Kryo listed = SerializationFactory.getKryo(conf);
        assertEquals(id, listed.getRegistration(CheckPointState.Action.class).getId());
        // The user's classes follow, with the same ids as without the duplicate.
        Map<String, Object> without = workers(2);
        without.put("topology.kryo.register", Arrays.asList("java.util.TreeMap"));
        assertEquals(SerializationFactory.getKryo(without).getRegistration(java.util.TreeMap.class).getId(),
                listed.getRegistration(java.util.TreeMap.class).getId());

        List<Object> values = Arrays.asList(3L, CheckPointState.Action.COMMIT);
        assertEquals(values, new TupleValuesCodec(conf).deserialize(new TupleValuesCodec(workers(2)).serialize(values)));
    }
}

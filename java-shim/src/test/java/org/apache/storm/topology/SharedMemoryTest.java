package org.apache.storm.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.SharedMemory;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Tuple;
import org.junit.jupiter.api.Test;

/** The shared-memory requests and how TopologyBuilder records them, as Storm's. */
class SharedMemoryTest {
    static final class Bolt extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    @Test
    void eachKindSetsItsAmount() {
        SharedOnHeap on = new SharedOnHeap(128, "cache");
        assertEquals("cache", on.get_name());
        assertEquals(128.0, on.get_on_heap());
        assertEquals(0.0, on.get_off_heap_worker());
        assertEquals(64.0, new SharedOffHeapWithinWorker(64, "w").get_off_heap_worker());
        assertEquals(32.0, new SharedOffHeapWithinNode(32, "n").get_off_heap_node());
        assertNotNull(new SharedOnHeap(1, null).get_name(), "a null name gets a random one");
    }

    @Test
    void theBuilderRecordsRegionsAndWhichComponentsUseThem() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Fakes.ValueSpout()).addSharedMemory(new SharedOnHeap(100, "cache"));
        b.setBolt("a", new Bolt()).shuffleGrouping("s").addSharedMemory(new SharedOnHeap(100, "cache"))
                .addSharedMemory(new SharedOffHeapWithinNode(10, "node"));
        StormTopology t = b.createTopology();
        Map<String, SharedMemory> regions = t.get_shared_memory();
        assertEquals(Set.of("cache", "node"), regions.keySet());
        assertEquals(100.0, regions.get("cache").get_on_heap());
        assertEquals(Set.of("cache"), t.get_component_to_shared_memory().get("s"));
        assertEquals(Set.of("cache", "node"), t.get_component_to_shared_memory().get("a"));
    }

    @Test
    void twoDifferentRegionsCannotShareAName() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new Fakes.ValueSpout()).addSharedMemory(new SharedOnHeap(100, "cache"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.setBolt("a", new Bolt()).addSharedMemory(new SharedOnHeap(200, "cache")));
        assertEquals("Cannot have multiple different shared memory regions with the same name", e.getMessage());
    }
}

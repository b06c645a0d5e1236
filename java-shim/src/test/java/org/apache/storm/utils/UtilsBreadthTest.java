package org.apache.storm.utils;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.Config;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.shade.org.apache.zookeeper.data.ACL;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Tuple;
import org.junit.jupiter.api.Test;

class UtilsBreadthTest {
    static final class Pass extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    @Test
    void asyncLoopRunsUntilTheFunctionReturnsNull() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Utils.SmartThread t = Utils.asyncLoop(() -> calls.incrementAndGet() < 3 ? 0L : null);
        t.join(5000);
        assertEquals(3, calls.get());
        CountDownLatch died = new CountDownLatch(1);
        Utils.SmartThread failing = Utils.asyncLoop(() -> {
            throw new IllegalStateException("boom");
        }, "failing", (th, e) -> died.countDown());
        assertTrue(died.await(5, TimeUnit.SECONDS));
        assertTrue(failing.getName().endsWith("-failing"));
    }

    @Test
    void smallHelpersBehaveAsStorms() {
        assertEquals("b", Utils.findOne(s -> s.startsWith("b"), List.of("a", "b", "bc")));
        assertNull(Utils.findOne(s -> false, List.of("a")));
        List<List<Object>> pairs = List.of(List.of("k1", "v"), List.of("k2", "v"), List.of("k3", "w"));
        Map<Object, List<Object>> rev = Utils.reverseMap(pairs);
        assertEquals(List.of("k1", "k2"), rev.get("v"));
        Map<String, Object> m = new HashMap<>(Map.of("password", "secret", "user", "u"));
        assertEquals("######", Utils.redactValue(m, "password").get("password"));
        assertEquals("secret", m.get("password"));
        assertTrue(Utils.isLocalhostAddress("127.0.0.1"));
        assertTrue(!Utils.isLocalhostAddress("10.0.0.1"));
        assertEquals(2048.0, Utils.parseJvmHeapMemByChildOpts(List.of("-server -Xmx2g"), 768.0));
        assertEquals(1.0, Utils.parseJvmHeapMemByChildOpts(List.of("-Xmx10k"), 768.0));
        assertEquals(512.0, Utils.parseJvmHeapMemByChildOpts(List.of("-Xms1g", "-Xmx512m"), 768.0));
        assertEquals(768.0, Utils.parseJvmHeapMemByChildOpts(List.of("-Xss1m"), 768.0));
        assertTrue(Utils.makeUptimeComputer().upTime() >= 0);
    }

    @Test
    void versionsCompareByMajorAndMinor() {
        assertEquals(new SimpleVersion("2.8"), new SimpleVersion("2.8.3-SNAPSHOT"));
        assertTrue(new SimpleVersion("2.10").compareTo(new SimpleVersion("2.9")) > 0);
        assertEquals(-1, new SimpleVersion("x").getMajor());
        TreeMap<SimpleVersion, String> m = new TreeMap<>();
        m.put(new SimpleVersion("1.2"), "one");
        m.put(new SimpleVersion("2.5"), "two-five");
        assertEquals("two-five", Utils.getCompatibleVersion(m, new SimpleVersion("2.1"), "x", "d"));
        assertEquals("two-five", Utils.getCompatibleVersion(m, new SimpleVersion("2.9"), "x", "d"));
        assertEquals("d", Utils.getCompatibleVersion(m, new SimpleVersion("3.0"), "x", "d"));
        assertEquals("org.apache.storm.daemon.worker.Worker",
                Utils.getConfiguredWorkerMainVersions(new HashMap<>()).firstEntry().getValue());
    }

    @Test
    void cyclesAreFoundAndRefused() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new TestWordSpout());
        b.setBolt("a", new Pass()).shuffleGrouping("s").shuffleGrouping("c");
        b.setBolt("b", new Pass()).shuffleGrouping("a");
        b.setBolt("c", new Pass()).shuffleGrouping("b");
        StormTopology cyclic = b.createTopology();
        List<List<String>> cycles = Utils.findComponentCycles(cyclic, "t");
        assertEquals(List.of(List.of("a", "b", "c")), cycles);
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> Utils.validateCycleFree(cyclic, "t"));
        assertTrue(e.get_msg().contains("a,b,c"), e.get_msg());
        TopologyBuilder ok = new TopologyBuilder();
        ok.setSpout("s", new TestWordSpout());
        ok.setBolt("a", new Pass()).shuffleGrouping("s");
        Utils.validateCycleFree(ok.createTopology(), "t");
    }

    @Test
    void zooKeeperAclsUseStormsRelocatedTypes() {
        Map<String, Object> conf = new HashMap<>();
        assertNull(Utils.getWorkerACL(conf));
        conf.put("storm.zookeeper.topology.auth.scheme", "digest");
        conf.put("storm.zookeeper.superACL", "sasl:storm");
        List<ACL> acls = Utils.getWorkerACL(conf);
        assertEquals(2, acls.size());
        assertEquals("sasl", acls.get(1).getId().getScheme());
        assertEquals("storm", acls.get(1).getId().getId());
        assertEquals(31, acls.get(1).getPerms());
        assertThrows(IllegalArgumentException.class, () -> Utils.parseZkId("nocolon", "k"));
    }

    @Test
    void theBlobStoreIsRefusedByName() throws Exception {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> Utils.getClientBlobStore(new HashMap<>()));
        assertTrue(e.getMessage().contains("blob store"));
        Utils.validateTopologyBlobStoreMap(new HashMap<>());
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.blobstore.map", Map.of("key", Map.of()));
        assertThrows(InvalidTopologyException.class, () -> Utils.validateTopologyBlobStoreMap(conf));
    }

    @Test
    void eventLoggersAndWorkerHooksAreRecorded() {
        Config conf = new Config();
        conf.registerEventLogger(org.apache.storm.metric.IEventLogger.class, Map.of("a", 1));
        Config.registerEventLogger(conf, org.apache.storm.metric.IEventLogger.class);
        List<?> loggers = (List<?>) conf.get(Config.TOPOLOGY_EVENT_LOGGER_REGISTER);
        assertEquals(2, loggers.size());
        assertEquals("org.apache.storm.metric.IEventLogger", ((Map<?, ?>) loggers.get(0)).get("class"));
        assertEquals(Map.of("a", 1), ((Map<?, ?>) loggers.get(0)).get("arguments"));
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("s", new TestWordSpout());
        b.addWorkerHook(new org.apache.storm.hooks.BaseWorkerHook());
        StormTopology t = b.createTopology();
        assertEquals(1, t.get_worker_hooks_size());
        Map<String, Object> carried = dev.egret.instance.WorkerHooks.carryInConfig(new HashMap<>(), t);
        assertEquals(1, ((List<?>) carried.get(dev.egret.instance.WorkerHooks.CONFIG_KEY)).size());
        assertThrows(IllegalArgumentException.class, () -> b.addWorkerHook(null));
        assertTrue(new ArrayList<>(List.of(1)).size() == 1);
    }
}

package org.apache.storm.generated;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.thrift.TBase;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shim's Thrift structs and Storm's speak the same bytes: what {@link Utils#thriftSerialize}
 * writes, the REAL storm-client classes (storm-client.jar plus its storm-shaded-deps, in an
 * isolated class loader) read with every field, and what they write back the shim reads into
 * an equal object. Field ids, wire types and requiredness thus match Storm's.
 */
class ThriftWireCompatibilityTest {
    private static URLClassLoader storm;

    @BeforeAll
    static void loadStorm() throws Exception {
        Path client = Paths.get(required("egret.apicheck.storm.jar"));
        Path deps = Paths.get(required("egret.apicheck.storm.deps"));
        assertTrue(Files.exists(client), "storm-client jar not found: " + client);
        assertTrue(Files.exists(deps), "storm-shaded-deps jar not found: " + deps);
        // Storm's Thrift logs through slf4j (not in storm-shaded-deps): its API jar, not the shim's.
        URL slf4j = org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
        // The platform loader as parent: nothing of the shim (same class names) is visible.
        storm = new URLClassLoader(new URL[] {client.toUri().toURL(), deps.toUri().toURL(), slf4j},
                ClassLoader.getPlatformClassLoader());
    }

    @AfterAll
    static void close() throws Exception {
        storm.close();
    }

    private static String required(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isEmpty()) {
            fail("system property " + key + " is not set (see java-shim/pom.xml, surefire configuration)");
        }
        return value;
    }

    /** Storm reads {@code bytes} into its own class of the same name. */
    private static Object stormRead(String simpleName, byte[] bytes) throws Exception {
        Class<?> c = storm.loadClass("org.apache.storm.generated." + simpleName);
        assertNotSame(c, Class.forName("org.apache.storm.generated." + simpleName), "isolated loader");
        Object struct = c.getConstructor().newInstance();
        Class<?> tbase = storm.loadClass("org.apache.storm.thrift.TBase");
        Class<?> deserializerClass = storm.loadClass("org.apache.storm.thrift.TDeserializer");
        Object deserializer = deserializerClass.getConstructor().newInstance();
        deserializerClass.getMethod("deserialize", tbase, byte[].class).invoke(deserializer, struct, bytes);
        return struct;
    }

    /** Storm's bytes of its struct. */
    private static byte[] stormWrite(Object struct) throws Exception {
        Class<?> tbase = storm.loadClass("org.apache.storm.thrift.TBase");
        Class<?> serializerClass = storm.loadClass("org.apache.storm.thrift.TSerializer");
        Object serializer = serializerClass.getConstructor().newInstance();
        return (byte[]) serializerClass.getMethod("serialize", tbase).invoke(serializer, struct);
    }

    private static Object call(Object target, String method) throws Exception {
        Method m = target.getClass().getMethod(method);
        return m.invoke(target);
    }

    /** Shim -> Storm -> shim; Storm must have read every field for the result to be equal. */
    private static <T extends TBase<?, ?>> Object roundTripThroughStorm(T original) throws Exception {
        byte[] ours = Utils.thriftSerialize(original);
        Object theirs = stormRead(original.getClass().getSimpleName(), ours);
        byte[] back = stormWrite(theirs);
        @SuppressWarnings("unchecked")
        T reread = (T) Utils.thriftDeserialize(original.getClass(), back);
        assertEquals(original, reread, "read back from Storm's bytes");
        assertEquals(0, ((Comparable<T>) original).compareTo(reread));
        return theirs;
    }

    @Test
    void killOptionsBytesAreStormsBytes() throws Exception {
        KillOptions opts = new KillOptions();
        opts.set_wait_secs(7);
        Object theirs = roundTripThroughStorm(opts);
        assertEquals(7, call(theirs, "get_wait_secs"));
        assertArrayEquals(Utils.thriftSerialize(opts), stormWrite(theirs));
        // Unset optional field: nothing on the wire but the stop byte, on both sides.
        Object empty = roundTripThroughStorm(new KillOptions());
        assertEquals(false, call(empty, "is_set_wait_secs"));
        assertArrayEquals(new byte[] {0}, Utils.thriftSerialize(new KillOptions()));
    }

    @Test
    void topologyInfoRoundTripsThroughStorm() throws Exception {
        TopologyInfo info = topologyInfo();
        Object theirs = roundTripThroughStorm(info);
        assertEquals("wc-1-1700000000", call(theirs, "get_id"));
        assertEquals("wc", call(theirs, "get_name"));
        assertEquals(2, call(theirs, "get_executors_size"));
        assertEquals("ACTIVE", call(theirs, "get_status"));
        assertEquals(1.5, call(theirs, "get_requested_cpu"));
        List<?> executors = (List<?>) call(theirs, "get_executors");
        Object boltStats = call(call(call(executors.get(1), "get_stats"), "get_specific"), "get_bolt");
        Map<?, ?> executed = (Map<?, ?>) ((Map<?, ?>) call(boltStats, "get_executed")).get(":all-time");
        Object stream = executed.keySet().iterator().next();
        assertEquals("spout", call(stream, "get_componentId"));
        assertEquals(40L, executed.get(stream));
        Object errors = ((Map<?, ?>) call(theirs, "get_errors")).get("split");
        assertEquals("boom", call(((List<?>) errors).get(0), "get_error"));
    }

    @Test
    void clusterSummaryRoundTripsThroughStorm() throws Exception {
        ClusterSummary summary = new ClusterSummary();
        SupervisorSummary sup = new SupervisorSummary("host-a", 10, 4, 2, "sup-1");
        sup.set_total_resources(Map.of("cpu.pcore.percent", 400.0));
        sup.set_used_mem(512.0);
        sup.set_blacklisted(false);
        summary.add_to_supervisors(sup);
        TopologySummary topo = new TopologySummary("wc-1-1", "wc", 4, 3, 2, 42, "INACTIVE");
        topo.set_storm_version("2.8.3");
        topo.set_owner("egret");
        topo.set_assigned_generic_resources(Map.of("gpu.count", 1.0));
        summary.add_to_topologies(topo);
        NimbusSummary nimbus = new NimbusSummary("localhost", 6627, 5, true, "egret");
        summary.add_to_nimbuses(nimbus);
        Object theirs = roundTripThroughStorm(summary);
        Object theirTopo = ((List<?>) call(theirs, "get_topologies")).get(0);
        assertEquals("INACTIVE", call(theirTopo, "get_status"));
        assertEquals(4, call(theirTopo, "get_num_tasks"));
        Object theirSup = ((List<?>) call(theirs, "get_supervisors")).get(0);
        // Defaults travel too: the shim's SupervisorSummary sets Storm's default version.
        assertEquals("VERSION_NOT_PROVIDED", call(theirSup, "get_version"));
        assertEquals(true, call(((List<?>) call(theirs, "get_nimbuses")).get(0), "is_isLeader"));
    }

    /** Storm -> shim: a struct filled on Storm's side arrives with the same values. */
    @Test
    void stormWrittenBytesAreReadByTheShim() throws Exception {
        Class<?> c = storm.loadClass("org.apache.storm.generated.ErrorInfo");
        Object theirs = c.getConstructor(String.class, int.class).newInstance("java.lang.RuntimeException: x", 99);
        c.getMethod("set_host", String.class).invoke(theirs, "host-b");
        c.getMethod("set_port", int.class).invoke(theirs, 6700);
        ErrorInfo ours = Utils.thriftDeserialize(ErrorInfo.class, stormWrite(theirs));
        assertEquals("java.lang.RuntimeException: x", ours.get_error());
        assertEquals(99, ours.get_error_time_secs());
        assertEquals("host-b", ours.get_host());
        assertEquals(6700, ours.get_port());
        assertTrue(ours.is_set_port());

        Class<?> k = storm.loadClass("org.apache.storm.generated.KillOptions");
        Object kill = k.getConstructor().newInstance();
        k.getMethod("set_wait_secs", int.class).invoke(kill, 3);
        assertEquals(3, Utils.thriftDeserialize(KillOptions.class, stormWrite(kill)).get_wait_secs());
    }

    private static TopologyInfo topologyInfo() {
        List<ExecutorSummary> executors = new ArrayList<>();
        SpoutStats spout = new SpoutStats(
                Map.of(":all-time", Map.of("default", 10L)),
                Map.of(":all-time", Map.of("default", 1L)),
                Map.of(":all-time", Map.of("default", 2.5)));
        ExecutorSummary s = new ExecutorSummary(new ExecutorInfo(1, 2), "spout", "host-a", 6700, 30);
        s.set_stats(new ExecutorStats(Map.of(":all-time", Map.of("default", 20L)),
                Map.of(":all-time", Map.of("default", 20L)), ExecutorSpecificStats.spout(spout), 1.0));
        executors.add(s);
        GlobalStreamId fromSpout = new GlobalStreamId("spout", "default");
        BoltStats bolt = new BoltStats(
                Map.of(":all-time", Map.of(fromSpout, 39L)),
                Map.of(":all-time", Map.of(fromSpout, 1L)),
                Map.of(":all-time", Map.of(fromSpout, 0.25)),
                Map.of(":all-time", Map.of(fromSpout, 40L)),
                Map.of(":all-time", Map.of(fromSpout, 0.5)));
        ExecutorSummary b = new ExecutorSummary(new ExecutorInfo(3, 3), "split", "host-a", 6700, 29);
        b.set_stats(new ExecutorStats(new HashMap<>(), new HashMap<>(), ExecutorSpecificStats.bolt(bolt), 1.0));
        executors.add(b);
        ErrorInfo error = new ErrorInfo("boom", 1700000001);
        error.set_host("host-a");
        error.set_port(6700);
        TopologyInfo info = new TopologyInfo("wc-1-1700000000", "wc", 31, executors, "ACTIVE",
                Map.of("split", List.of(error)));
        DebugOptions debug = new DebugOptions();
        debug.set_enable(true);
        debug.set_samplingpct(12.5);
        info.set_component_debug(Map.of("split", debug));
        info.set_storm_version("2.8.3");
        info.set_owner("egret");
        info.set_requested_cpu(1.5);
        info.set_assigned_memonheap(768.0);
        return info;
    }
}

package org.apache.storm.utils;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.storm.Config;
import org.apache.storm.topology.TopologyBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The utils classes issue 16 adds that Storm's conformance tests do not exercise. */
class Issue16UtilsTest {

    @Test
    void rotatingMapExpiresAnEntryAfterItsBucketsRotateOut() {
        List<String> expired = new ArrayList<>();
        RotatingMap<String, Integer> map = new RotatingMap<>(3, (k, v) -> expired.add(k + "=" + v));
        map.put("a", 1);
        assertEquals(Integer.valueOf(1), map.get("a"));
        assertTrue(map.rotate().isEmpty());
        assertTrue(map.rotate().isEmpty());
        assertTrue(map.containsKey("a"), "an entry lives numBuckets - 1 rotations");
        Map<String, Integer> dead = map.rotate();
        assertEquals(Map.of("a", 1), dead);
        assertEquals(List.of("a=1"), expired);
        assertFalse(map.containsKey("a"));
        assertEquals(0, map.size());
    }

    @Test
    void rotatingMapPutRestartsExpiryAndRemoveReturnsTheValue() {
        RotatingMap<String, Integer> map = new RotatingMap<>(2);
        map.put("a", 1);
        map.rotate();
        map.put("a", 2); // back into the newest bucket, the old copy dropped
        assertEquals(1, map.size());
        assertTrue(map.rotate().isEmpty());
        assertEquals(Integer.valueOf(2), map.get("a"));
        assertEquals(Integer.valueOf(2), map.remove("a"));
        assertNull(map.remove("a"));
        assertThrows(IllegalArgumentException.class, () -> new RotatingMap<String, String>(1));
    }

    @Test
    void keyedRoundRobinQueueServesKeysInTurn() throws InterruptedException {
        KeyedRoundRobinQueue<String> q = new KeyedRoundRobinQueue<>();
        q.add("x", "x1");
        q.add("x", "x2");
        q.add("x", "x3");
        q.add("y", "y1");
        q.add("z", "z1");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            out.add(q.take());
        }
        assertEquals(List.of("x1", "y1", "z1", "x2", "x3"), out);
    }

    @Test
    void windowedTimeThrottlerCountsPerWindowOnSimulatedTime() {
        try (Time.SimulatedTime t = new Time.SimulatedTime()) {
            Time.advanceTime(1000);
            WindowedTimeThrottler throttler = new WindowedTimeThrottler(100, 2);
            assertFalse(throttler.isThrottled());
            throttler.markEvent();
            throttler.markEvent();
            assertTrue(throttler.isThrottled());
            Time.advanceTime(99);
            assertTrue(throttler.isThrottled(), "same window");
            Time.advanceTime(1);
            assertFalse(throttler.isThrottled(), "a new window starts over");
        }
    }

    @Test
    void writableUtilsVarLongsMatchHadoopsEncoding() throws IOException {
        long[] samples = {0, 1, -1, 127, -112, 128, -113, 255, 256, 65535, -65536, Integer.MAX_VALUE,
                Integer.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE};
        for (long v : samples) {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            WritableUtils.writeVLong(new DataOutputStream(bos), v);
            byte[] bytes = bos.toByteArray();
            assertEquals(WritableUtils.getVIntSize(v), bytes.length, "size of " + v);
            assertEquals(bytes.length, WritableUtils.decodeVIntSize(bytes[0]), "decoded size of " + v);
            assertEquals(v, WritableUtils.readVLong(new DataInputStream(new ByteArrayInputStream(bytes))));
        }
        // Hadoop's bytes: 128 is 0x8f 0x80; -113 is 0x87 0x70.
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        WritableUtils.writeVLong(new DataOutputStream(bos), 128);
        assertArrayEquals(new byte[] {(byte) 0x8f, (byte) 0x80}, bos.toByteArray());
        bos.reset();
        WritableUtils.writeVLong(new DataOutputStream(bos), -113);
        assertArrayEquals(new byte[] {(byte) 0x87, (byte) 0x70}, bos.toByteArray());
        bos.reset();
        WritableUtils.writeVLong(new DataOutputStream(bos), 1L << 40);
        assertThrows(IOException.class,
                () -> WritableUtils.readVInt(new DataInputStream(new ByteArrayInputStream(bos.toByteArray()))));
    }

    @Test
    void writableUtilsStringsAndCompressedArraysRoundTrip() throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        WritableUtils.writeString(out, "héllo");
        WritableUtils.writeString(out, null);
        WritableUtils.writeCompressedString(out, "a".repeat(1000));
        WritableUtils.writeStringArray(out, new String[] {"x", null, "z"});
        WritableUtils.writeCompressedStringArray(out, null);
        WritableUtils.writeCompressedByteArray(out, new byte[] {1, 2, 3});
        WritableUtils.writeString(out, "end");
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bos.toByteArray()));
        assertEquals("héllo", WritableUtils.readString(in));
        assertNull(WritableUtils.readString(in));
        assertEquals("a".repeat(1000), WritableUtils.readCompressedString(in));
        assertArrayEquals(new String[] {"x", null, "z"}, WritableUtils.readStringArray(in));
        assertNull(WritableUtils.readCompressedStringArray(in));
        WritableUtils.skipCompressedByteArray(in);
        assertEquals("end", WritableUtils.readString(in));
    }

    @Test
    void crc32OutputStreamAndBufferFileInputStream(@TempDir Path dir) throws IOException {
        byte[] data = "the quick brown fox".getBytes(StandardCharsets.UTF_8);
        CRC32OutputStream crcOut = new CRC32OutputStream();
        crcOut.write(data, 0, 4);
        crcOut.write(data, 4, data.length - 4);
        CRC32 expected = new CRC32();
        expected.update(data);
        assertEquals(expected.getValue(), crcOut.getValue());

        Path f = dir.resolve("f");
        Files.write(f, data);
        BufferFileInputStream in = new BufferFileInputStream(f.toString(), 8);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        List<Integer> sizes = new ArrayList<>();
        for (byte[] chunk = in.read(); chunk.length > 0; chunk = in.read()) {
            sizes.add(chunk.length);
            all.write(chunk);
        }
        in.close();
        assertEquals(List.of(8, 8, 3), sizes);
        assertArrayEquals(data, all.toByteArray());
    }

    @Test
    void mutablesAndRegistries() {
        MutableInt i = new MutableInt(1);
        assertEquals(2, i.increment());
        assertEquals(7, i.increment(5));
        MutableLong l = new MutableLong(10);
        assertEquals(11, l.increment());
        l.set(3);
        assertEquals(3, l.get());
        MutableObject o = new MutableObject();
        assertNull(o.getObject());
        o.setObject("x");
        assertEquals("x", o.getObject());

        String id = RegisteredGlobalState.registerState("init");
        assertEquals("init", RegisteredGlobalState.getState(id));
        RegisteredGlobalState.setState(id, "next");
        assertEquals("next", RegisteredGlobalState.getState(id));
        RegisteredGlobalState.clearState(id);
        assertNull(RegisteredGlobalState.getState(id));

        String sid = ServiceRegistry.registerService(this);
        assertEquals(this, ServiceRegistry.getService(sid));
        ServiceRegistry.unregisterService(sid);
        assertNull(ServiceRegistry.getService(sid));
    }

    @Test
    void inprocMessagingDeliversInOrderPerPort() throws InterruptedException {
        int port = InprocMessaging.acquireNewPort();
        assertTrue(InprocMessaging.acquireNewPort() > port);
        assertNull(InprocMessaging.pollMessage(port)); // registers the reader
        InprocMessaging.sendMessage(port, "a");
        InprocMessaging.sendMessageNoWait(port, "b");
        assertEquals("a", InprocMessaging.takeMessage(port));
        assertEquals("b", InprocMessaging.pollMessage(port));
    }

    @Test
    void reflectionUtilsUsesTheMapConstructorAndRefusesADisallowedStrategy() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("k", "v");
        WithConf withConf = ReflectionUtils.newInstance(WithConf.class, conf);
        assertEquals(conf, withConf.conf);
        assertTrue(ReflectionUtils.newInstance(ArrayList.class.getName(), conf) instanceof ArrayList);
        conf.put(Config.NIMBUS_SCHEDULER_STRATEGY_CLASS_WHITELIST, List.of("a.Allowed"));
        DisallowedStrategyException e = assertThrows(DisallowedStrategyException.class,
                () -> ReflectionUtils.newSchedulerStrategyInstance("b.NotAllowed", conf));
        assertEquals("b.NotAllowed", e.getAttemptedClass());
        assertEquals(List.of("a.Allowed"), e.getAllowedStrategies());
    }

    public static final class WithConf {
        final Map<String, Object> conf;

        public WithConf(Map<String, Object> conf) {
            this.conf = conf;
        }
    }

    @Test
    void versionInfoIsTheShimsStormApiLevel() {
        assertEquals(TopologyBuilder.STORM_VERSION, VersionInfo.getVersion());
        assertEquals(0, VersionInfo.OUR_VERSION.compareTo(new SimpleVersion(TopologyBuilder.STORM_VERSION)));
        assertEquals("Unknown", VersionInfo.getRevision());
        assertNull(VersionInfo.getFromClasspath("/no/such/dir" + java.io.File.pathSeparator + "/no/such.jar"));
    }

    @Test
    void versionInfoFromAClasspathDirectoryAndWildcard(@TempDir Path dir) throws IOException {
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("storm-client-version-info.properties"), "version=2.6.1\nrevision=abc\n");
        IVersionInfo info = VersionInfo.getFromClasspath(List.of(dir.resolve("none").toString(), classes.toString()));
        assertEquals("2.6.1", info.getVersion());
        assertEquals("abc", info.getRevision());
        assertEquals("Unknown", info.getBranch());

        Path lib = Files.createDirectories(dir.resolve("lib"));
        try (java.util.zip.ZipOutputStream zip =
                     new java.util.zip.ZipOutputStream(Files.newOutputStream(lib.resolve("storm-client-2.7.0.jar")))) {
            zip.putNextEntry(new java.util.zip.ZipEntry("storm-client-version-info.properties"));
            zip.write("version=2.7.0\n".getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        assertEquals("2.7.0", VersionInfo.getFromClasspath(lib + "/*").getVersion());

        Map<String, Object> conf = new HashMap<>();
        conf.put("supervisor.worker.version.classpath.map", Map.of("2.7.0", lib + "/*", "2.5.0", "/no/such"));
        java.util.NavigableMap<String, IVersionInfo> alt = Utils.getAlternativeVersionsMap(conf);
        assertEquals(1, alt.size(), "a classpath without version info is left out");
        assertEquals("2.7.0", alt.get("2.7.0").getVersion());
    }

    @Test
    void wrappedExceptionsCarryTheirMessage() {
        assertEquals("boom", new WrappedNotAliveException("boom").getMessage());
        assertEquals("bad", new WrappedInvalidTopologyException("bad").getMessage());
        assertEquals("x", new WrappedHBExecutionException("x").get_msg());
    }

    @Test
    void configUtilsModeSamplingPasswordsAndBlobKeys() {
        Map<String, Object> conf = new HashMap<>();
        assertTrue(ConfigUtils.isLocalMode(conf));
        conf.put(Config.STORM_CLUSTER_MODE, "distributed");
        assertFalse(ConfigUtils.isLocalMode(conf));
        conf.put(Config.STORM_CLUSTER_MODE, "odd");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConfigUtils.isLocalMode(conf));
        assertEquals("Illegal cluster mode in conf: odd", e.getMessage());

        conf.put(Config.TOPOLOGY_STATS_SAMPLE_RATE, 0.25);
        assertEquals(4, ConfigUtils.samplingRate(conf));
        java.util.function.BooleanSupplier sampler = ConfigUtils.mkStatsSampler(conf);
        for (int run = 0; run < 5; run++) {
            int hits = 0;
            for (int i = 0; i < 4; i++) {
                hits += sampler.getAsBoolean() ? 1 : 0;
            }
            assertEquals(1, hits, "exactly one in every run of 4");
        }
        conf.put(Config.TOPOLOGY_STATS_SAMPLE_RATE, 0.0);
        assertThrows(IllegalArgumentException.class, () -> ConfigUtils.samplingRate(conf));

        Map<String, Object> withSecret = new HashMap<>();
        withSecret.put(Config.STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOAD, "secret");
        withSecret.put(Config.TOPOLOGY_WORKERS, 2);
        Map<String, Object> masked = ConfigUtils.maskPasswords(withSecret);
        assertEquals("*****", masked.get(Config.STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOAD));
        assertEquals(2, masked.get(Config.TOPOLOGY_WORKERS));
        assertEquals("secret", withSecret.get(Config.STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOAD));

        assertEquals("t-1", ConfigUtils.getIdFromBlobKey(ConfigUtils.masterStormJarKey("t-1")));
        assertEquals("t-1", ConfigUtils.getIdFromBlobKey(ConfigUtils.masterStormConfKey("t-1")));
        assertEquals("t-1", ConfigUtils.getIdFromBlobKey(ConfigUtils.masterStormCodeKey("t-1")));
        assertNull(ConfigUtils.getIdFromBlobKey("other"));
        assertEquals("", ConfigUtils.concatIfNotNull(null));
        assertEquals("d" + java.io.File.separator, ConfigUtils.concatIfNotNull("d"));
    }
}

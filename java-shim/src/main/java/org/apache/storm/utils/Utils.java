package org.apache.storm.utils;

import dev.egret.runtime.ConfigJson;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.storm.generated.GlobalStreamId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Storm's grab-bag of static helpers, the parts topology code uses.
 *
 * <p>Config reading follows Egret's contract: {@link #readStormConfig()} is
 * {@code defaults.yaml} &lt; {@code EGRET_CLUSTER_CONFIG} (a JSON object set by {@code egret})
 * &lt; the {@code -c} options in the {@code storm.options} system property.
 */
public class Utils {
    public static final Logger LOG = LoggerFactory.getLogger(Utils.class);
    public static final String DEFAULT_STREAM_ID = "default";
    /** Environment variable holding egret's cluster config as a JSON object. */
    public static final String EGRET_CLUSTER_CONFIG_ENV = "EGRET_CLUSTER_CONFIG";

    private static final SecureRandom RANDOM = new SecureRandom();

    public Utils() {
    }

    public static List<URL> findResources(String name) {
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            if (cl == null) {
                cl = Utils.class.getClassLoader();
            }
            Enumeration<URL> resources = cl.getResources(name);
            List<URL> ret = new ArrayList<>();
            while (resources.hasMoreElements()) {
                ret.add(resources.nextElement());
            }
            return ret;
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Reads a YAML config from the classpath, else from the file system.
     *
     * @throws RuntimeException if the resource appears more than once on the classpath, or
     *     {@code mustExist} and it is found nowhere
     */
    public static Map<String, Object> findAndReadConfigFile(String name, boolean mustExist) {
        try {
            List<URL> resources = findResources(name);
            if (resources.size() > 1) {
                throw new IOException("Found multiple " + name + " resources. You're probably bundling the Storm jars "
                        + "with your topology jar. " + resources);
            }
            if (resources.size() == 1) {
                try (InputStream in = resources.get(0).openStream()) {
                    return readYaml(in, name);
                }
            }
            File f = new File(name);
            if (f.isFile()) {
                try (InputStream in = Files.newInputStream(f.toPath())) {
                    return readYaml(in, name);
                }
            }
            if (mustExist) {
                throw new RuntimeException("Could not find config file on classpath " + name);
            }
            return new HashMap<>();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    public static Map<String, Object> findAndReadConfigFile(String name) {
        return findAndReadConfigFile(name, true);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readYaml(InputStream in, String name) {
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        Object loaded = yaml.load(in);
        if (loaded == null) {
            return new HashMap<>();
        }
        if (!(loaded instanceof Map)) {
            throw new IllegalArgumentException("Config file " + name + " is not a YAML map");
        }
        return new HashMap<>((Map<String, Object>) loaded);
    }

    public static Map<String, Object> readDefaultConfig() {
        return findAndReadConfigFile("defaults.yaml", true);
    }

    /**
     * The {@code -c key=value} options: the {@code storm.options} system property, a comma
     * separated list of URL-encoded {@code key=value}; values parse as JSON, else stay strings.
     */
    public static Map<String, Object> readCommandLineOpts() {
        Map<String, Object> ret = new HashMap<>();
        String commandOptions = System.getProperty("storm.options");
        if (commandOptions != null) {
            for (String config : commandOptions.split(",")) {
                String decoded = URLDecoder.decode(config, StandardCharsets.UTF_8);
                String[] options = decoded.split("=", 2);
                if (options.length == 2) {
                    Object val = options[1];
                    try {
                        val = ConfigJson.parseValue(options[1]);
                    } catch (IOException | RuntimeException ignored) {
                        // Not JSON: the raw string is the value, as in Storm.
                    }
                    ret.put(options[0], val);
                }
            }
        }
        return ret;
    }

    /** egret's cluster config ({@code EGRET_CLUSTER_CONFIG}), or an empty map when unset. */
    public static Map<String, Object> readEgretClusterConfig() {
        String json = System.getenv(EGRET_CLUSTER_CONFIG_ENV);
        if (json == null || json.isBlank()) {
            return new HashMap<>();
        }
        try {
            return ConfigJson.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(EGRET_CLUSTER_CONFIG_ENV + " is not a JSON object: " + e.getMessage(), e);
        }
    }

    /** defaults.yaml &lt; EGRET_CLUSTER_CONFIG &lt; storm.options. */
    public static Map<String, Object> readStormConfig() {
        Map<String, Object> ret = readDefaultConfig();
        ret.putAll(readEgretClusterConfig());
        ret.putAll(readCommandLineOpts());
        return ret;
    }

    public static void addShutdownHookWithForceKillIn1Sec(Runnable func) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(1000);
                    Runtime.getRuntime().halt(20);
                } catch (InterruptedException ignored) {
                    // the hook finished in time
                }
            }, "shutdown-force-kill");
            killer.setDaemon(true);
            killer.start();
            func.run();
            killer.interrupt();
        }, "shutdown-hook"));
    }

    /** Storm's system components and streams start with "__". */
    public static boolean isSystemId(String id) {
        return id.startsWith("__");
    }

    public static boolean exceptionCauseIsInstanceOf(Class klass, Throwable throwable) {
        for (Throwable t = throwable; t != null; t = t.getCause()) {
            if (klass.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    public static RuntimeException wrapInRuntime(Exception e) {
        return e instanceof RuntimeException ? (RuntimeException) e : new RuntimeException(e);
    }

    public static long secureRandomLong() {
        return RANDOM.nextLong();
    }

    public static String hostname() throws UnknownHostException {
        return localHostname();
    }

    public static String localHostname() throws UnknownHostException {
        return InetAddress.getLocalHost().getCanonicalHostName();
    }

    public static void exitProcess(int val, String msg) {
        String combined = "Halting process: " + msg;
        LOG.error(combined, new RuntimeException(combined));
        Runtime.getRuntime().exit(val);
    }

    public static String uuid() {
        return UUID.randomUUID().toString();
    }

    public static byte[] javaSerialize(Object obj) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            try (ObjectOutputStream oos = new ObjectOutputStream(bos)) {
                oos.writeObject(obj);
            }
            return bos.toByteArray();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** Deserializes with the thread's context class loader, so user classes resolve. */
    public static <T> T javaDeserialize(byte[] serialized, Class<T> clazz) {
        try (ObjectInputStream ois = new ContextObjectInputStream(new ByteArrayInputStream(serialized))) {
            return clazz.cast(ois.readObject());
        } catch (IOException | ClassNotFoundException e) {
            throw new RuntimeException(e);
        }
    }

    // ---- Thrift (de)serialization and topology look-up through Nimbus, as Storm's Utils ----

    /** Thrift's serializer and deserializer keep per-call state: one of each per thread. */
    private static final ThreadLocal<org.apache.storm.thrift.TSerializer> THRIFT_SERIALIZER =
            ThreadLocal.withInitial(() -> {
                try {
                    return new org.apache.storm.thrift.TSerializer();
                } catch (org.apache.storm.thrift.transport.TTransportException e) {
                    throw new IllegalStateException("cannot create a Thrift serializer", e);
                }
            });
    private static final ThreadLocal<org.apache.storm.thrift.TDeserializer> THRIFT_DESERIALIZER =
            ThreadLocal.withInitial(() -> {
                try {
                    return new org.apache.storm.thrift.TDeserializer();
                } catch (org.apache.storm.thrift.transport.TTransportException e) {
                    throw new IllegalStateException("cannot create a Thrift deserializer", e);
                }
            });

    /** Thrift's binary encoding of {@code t}, the bytes Storm's Utils.thriftSerialize makes. */
    public static byte[] thriftSerialize(org.apache.storm.thrift.TBase t) {
        try {
            return THRIFT_SERIALIZER.get().serialize(t);
        } catch (org.apache.storm.thrift.TException e) {
            LOG.error("Failed to serialize to thrift: ", e);
            throw new RuntimeException(e);
        }
    }

    public static <T> T thriftDeserialize(Class<T> c, byte[] b) {
        return thriftDeserialize(c, b, 0, b.length);
    }

    /** Reads a {@code c} (a Thrift struct with a public no-arg constructor) from {@code b}. */
    public static <T> T thriftDeserialize(Class<T> c, byte[] b, int offset, int length) {
        try {
            T ret = c.getDeclaredConstructor().newInstance();
            THRIFT_DESERIALIZER.get().deserialize((org.apache.storm.thrift.TBase) ret, b, offset, length);
            return ret;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** The info of the topology named {@code name}, or null when none runs; asks Nimbus as {@code asUser}. */
    public static org.apache.storm.generated.TopologyInfo getTopologyInfo(String name, String asUser,
            Map<String, Object> topoConf) {
        try (NimbusClient client = NimbusClient.getConfiguredClientAs(topoConf, asUser)) {
            String topologyId = getTopologyId(name, client.getClient());
            return topologyId == null ? null : client.getClient().getTopologyInfo(topologyId);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** The id of the running topology named {@code name}, or null. */
    public static String getTopologyId(String name, org.apache.storm.generated.Nimbus.Iface client) {
        try {
            org.apache.storm.generated.ClusterSummary summary = client.getClusterInfo();
            for (org.apache.storm.generated.TopologySummary s : summary.get_topologies()) {
                if (s.get_name().equals(name)) {
                    return s.get_id();
                }
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        return null;
    }

    // ---- end of the Thrift block ----

    public static <S, T> T get(Map<S, T> m, S key, T def) {
        T ret = m.get(key);
        return ret == null ? def : ret;
    }

    public static <T> String join(Iterable<T> coll, String sep) {
        StringBuilder sb = new StringBuilder();
        Iterator<T> it = coll.iterator();
        while (it.hasNext()) {
            sb.append(it.next());
            if (it.hasNext()) {
                sb.append(sep);
            }
        }
        return sb.toString();
    }

    public static void handleUncaughtException(Throwable t) {
        LOG.error("Received error in thread {}.. terminating worker...", Thread.currentThread().getName(), t);
        Runtime.getRuntime().exit(1);
    }

    public static void sleepNoSimulation(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void sleep(long millis) {
        sleepNoSimulation(millis);
    }

    public static boolean isOnWindows() {
        return System.getProperty("os.name", "").startsWith("Windows");
    }

    public static boolean checkFileExists(String path) {
        return Files.exists(Paths.get(path));
    }

    public static void forceDelete(String path) throws IOException {
        Path p = Paths.get(path);
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            List<Path> all = new ArrayList<>();
            walk.forEach(all::add);
            Collections.reverse(all);
            for (Path q : all) {
                Files.deleteIfExists(q);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    public static List<Object> tuple(Object... values) {
        List<Object> ret = new ArrayList<>(values.length);
        Collections.addAll(ret, values);
        return ret;
    }

    public static GlobalStreamId getGlobalStreamId(String componentId, String streamId) {
        if (streamId == null) {
            return new GlobalStreamId(componentId, DEFAULT_STREAM_ID);
        }
        return new GlobalStreamId(componentId, streamId);
    }

    /** Whether a config survives a JSON round trip (what a topology config must do). */
    public static boolean isValidConf(Map<String, Object> topoConf) {
        try {
            ConfigJson.validate(topoConf);
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("Topology conf is not valid: {}", e.getMessage());
            return false;
        }
    }

    public static String threadDump() {
        StringBuilder dump = new StringBuilder();
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append(info);
        }
        return dump.toString();
    }

    public static int getAvailablePort(int preferredPort) {
        try (ServerSocket socket = new ServerSocket(preferredPort)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            if (preferredPort != 0) {
                return getAvailablePort(0);
            }
            throw new RuntimeException(e);
        }
    }

    public static int getAvailablePort() {
        return getAvailablePort(0);
    }

    public static Map<String, Object> parseJson(String json) {
        if (json == null) {
            return new HashMap<>();
        }
        return ConfigJson.parse(json);
    }

    public static <K, V> Map<K, V> merge(Map<? extends K, ? extends V> first, Map<? extends K, ? extends V> other) {
        Map<K, V> ret = new HashMap<>(first);
        if (other != null) {
            ret.putAll(other);
        }
        return ret;
    }

    public static final java.util.regex.Pattern BLOB_KEY_PATTERN =
            java.util.regex.Pattern.compile("^[\\w \\t\\._-]+$", java.util.regex.Pattern.UNICODE_CHARACTER_CLASS);

    /** The first argument unless it is null, else the second. */
    public static <V> V OR(V a, V b) {
        return a == null ? b : a;
    }

    public static void addShutdownHookWithDelayedForceKill(Runnable func, int numSecs) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(numSecs * 1000L);
                    Runtime.getRuntime().halt(20);
                } catch (InterruptedException ignored) {
                    // the hook finished in time
                }
            }, "shutdown-force-kill");
            killer.setDaemon(true);
            killer.start();
            func.run();
            killer.interrupt();
        }, "shutdown-hook"));
    }

    /** Values of {@code srcMap} placed at their integer keys minus {@code start}. */
    public static <T> ArrayList<T> convertToArray(Map<Integer, T> srcMap, int start) {
        java.util.Set<Integer> ids = srcMap.keySet();
        Integer largestId = ids.stream().max(Integer::compareTo).orElse(start - 1);
        int end = largestId - start;
        ArrayList<T> result = new ArrayList<>(Collections.nCopies(end + 1, null));
        for (Map.Entry<Integer, T> entry : srcMap.entrySet()) {
            result.set(entry.getKey() - start, entry.getValue());
        }
        return result;
    }

    protected void forceDeleteImpl(String path) throws IOException {
        forceDelete(path);
    }

    protected String localHostnameImpl() throws UnknownHostException {
        return InetAddress.getLocalHost().getCanonicalHostName();
    }

    protected String hostnameImpl() throws UnknownHostException {
        return localHostnameImpl();
    }

    private static volatile ClassLoader cl;

    /** The class loader {@link #javaDeserialize} uses (null: the thread's context loader). */
    public static void setClassLoaderForJavaDeSerialize(ClassLoader loader) {
        cl = loader;
    }

    public static void resetClassLoaderForJavaDeSerialize() {
        cl = null;
    }

    public static byte[] serialize(Object obj) {
        return javaSerialize(obj);
    }

    public static <T> T deserialize(byte[] serialized, Class<T> clazz) {
        return javaDeserialize(serialized, clazz);
    }

    public static String serializeToString(Object obj) {
        return java.util.Base64.getEncoder().encodeToString(javaSerialize(obj));
    }

    public static <T> T deserializeFromString(String str, Class<T> clazz) {
        return javaDeserialize(java.util.Base64.getDecoder().decode(str), clazz);
    }

    public static byte[] gzip(byte[] data) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(bos)) {
                out.write(data);
            }
            return bos.toByteArray();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    public static byte[] gunzip(byte[] data) {
        try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(data))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    public static byte[] toCompressedJsonConf(Map<String, Object> topoConf) {
        return gzip(ConfigJson.toJson(topoConf).getBytes(StandardCharsets.UTF_8));
    }

    public static Map<String, Object> fromCompressedJsonConf(byte[] serialized) {
        return ConfigJson.parse(new String(gunzip(serialized), StandardCharsets.UTF_8));
    }

    public static byte[] toByteArray(java.nio.ByteBuffer buffer) {
        byte[] ret = new byte[buffer.remaining()];
        buffer.get(ret, 0, ret.length);
        return ret;
    }

    public static String urlEncodeUtf8(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public static String urlDecodeUtf8(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Storm's rule: a topology name is not blank and holds none of / . : \\ */
    public static void validateTopologyName(String name) throws org.apache.storm.generated.InvalidTopologyException {
        if (name == null || name.isBlank()) {
            throw new org.apache.storm.generated.InvalidTopologyException("Topology name cannot be blank");
        }
        if (!name.matches("^[^/.:\\\\]+$")) {
            throw new org.apache.storm.generated.InvalidTopologyException(
                    "Topology name must be valid: '" + name + "' contains one of / . : \\");
        }
    }

    public static boolean isValidKey(String key) {
        return key != null && !key.isEmpty() && !key.contains("/") && !key.equals(".") && !key.equals("..");
    }

    /** The common part of a spout or bolt of a topology. */
    public static org.apache.storm.generated.ComponentCommon getComponentCommon(
            org.apache.storm.generated.StormTopology topology, String id) {
        if (topology.get_spouts() != null && topology.get_spouts().containsKey(id)) {
            return topology.get_spouts().get(id).get_common();
        }
        if (topology.get_bolts() != null && topology.get_bolts().containsKey(id)) {
            return topology.get_bolts().get(id).get_common();
        }
        if (topology.get_state_spouts() != null && topology.get_state_spouts().containsKey(id)) {
            return topology.get_state_spouts().get(id).get_common();
        }
        throw new IllegalArgumentException("Could not find component with id " + id);
    }

    /** The object a ComponentObject holds: deserialized Java, a ShellComponent or a JavaObject. */
    public static Object getSetComponentObject(org.apache.storm.generated.ComponentObject obj) {
        if (obj.is_set_serialized_java()) {
            return javaDeserialize(obj.get_serialized_java(), java.io.Serializable.class);
        } else if (obj.is_set_java_object()) {
            return obj.get_java_object();
        }
        return obj.get_shell();
    }

    public static List<String> getRepeat(List<String> list) {
        List<String> rtn = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String s : list) {
            if (!seen.add(s) && !rtn.contains(s)) {
                rtn.add(s);
            }
        }
        return rtn;
    }

    /** Splits {@code coll} into at most {@code maxNumChunks} contiguous chunks, larger ones first. */
    public static <T> List<List<T>> partitionFixed(int maxNumChunks, java.util.Collection<T> coll) {
        List<List<T>> ret = new ArrayList<>();
        if (maxNumChunks == 0 || coll == null) {
            return ret;
        }
        List<T> all = new ArrayList<>(coll);
        int chunks = Math.min(maxNumChunks, all.size());
        if (chunks == 0) {
            return ret;
        }
        int base = all.size() / chunks;
        int extra = all.size() % chunks;
        int at = 0;
        for (int i = 0; i < chunks; i++) {
            int n = base + (i < extra ? 1 : 0);
            ret.add(new ArrayList<>(all.subList(at, at + n)));
            at += n;
        }
        return ret;
    }

    /** How {@code sum} splits over {@code numPieces}: piece size to the number of pieces of that size. */
    public static java.util.TreeMap<Integer, Integer> integerDivided(int sum, int numPieces) {
        int base = sum / numPieces;
        int numInc = sum % numPieces;
        int numBases = numPieces - numInc;
        java.util.TreeMap<Integer, Integer> ret = new java.util.TreeMap<>();
        ret.put(base, numBases);
        if (numInc != 0) {
            ret.put(base + 1, numInc);
        }
        return ret;
    }

    public static <K, V> java.util.HashMap<V, List<K>> reverseMap(Map<K, V> map) {
        java.util.HashMap<V, List<K>> rtn = new java.util.HashMap<>();
        if (map == null) {
            return rtn;
        }
        for (Map.Entry<K, V> entry : map.entrySet()) {
            rtn.computeIfAbsent(entry.getValue(), k -> new ArrayList<>()).add(entry.getKey());
        }
        return rtn;
    }

    public static long bitXor(Long a, Long b) {
        return a ^ b;
    }

    public static long bitXorVals(List<Long> coll) {
        long result = 0;
        for (Long val : coll) {
            result ^= val;
        }
        return result;
    }

    public static int toPositive(int number) {
        return number & Integer.MAX_VALUE;
    }

    public static double zeroIfNaNOrInf(double x) {
        return Double.isNaN(x) || Double.isInfinite(x) ? 0.0 : x;
    }

    public static double nullToZero(Double v) {
        return v == null ? 0.0 : v;
    }

    public static String processPid() {
        return String.valueOf(ProcessHandle.current().pid());
    }

    public static boolean checkDirExists(String dir) {
        return Files.isDirectory(Paths.get(dir));
    }

    public static Object readYamlFile(String yamlFile) {
        try (InputStream in = Files.newInputStream(Paths.get(yamlFile))) {
            return new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** Instantiates the class named under {@code configKey}, or null when unset. */
    public static Object getConfiguredClass(Map<String, Object> conf, Object configKey) {
        Object name = conf.get(configKey);
        if (name == null) {
            return null;
        }
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return Class.forName(name.toString(), true, loader == null ? Utils.class.getClassLoader() : loader)
                    .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    private static volatile String memoizedHostname;

    public static String memoizedLocalHostname() throws UnknownHostException {
        if (memoizedHostname == null) {
            memoizedHostname = localHostname();
        }
        return memoizedHostname;
    }

    public static <T extends Throwable> T unwrapTo(Class<T> klass, Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (klass.isInstance(c)) {
                return klass.cast(c);
            }
        }
        return null;
    }

    public static <T extends Throwable> void unwrapAndThrow(Class<T> klass, Throwable t) throws T {
        T ret = unwrapTo(klass, t);
        if (ret != null) {
            throw ret;
        }
    }

    public static void handleUncaughtException(Throwable t, java.util.Set<Class<?>> allowedExceptions,
            boolean worker) {
        if (t != null) {
            for (Class<?> k : allowedExceptions) {
                if (exceptionCauseIsInstanceOf(k, t)) {
                    return;
                }
            }
        }
        handleUncaughtException(t);
    }

    /** Resolves classes through the thread's context class loader first. */
    private static final class ContextObjectInputStream extends ObjectInputStream {
        ContextObjectInputStream(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            ClassLoader loader = cl != null ? cl : Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException ignored) {
                    // fall back to the default resolution
                }
            }
            return super.resolveClass(desc);
        }
    }
}

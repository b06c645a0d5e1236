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

    // ---- Storm 2.8 Utils breadth (egret issue 3): worker plumbing, versions, ACLs, cycles. ----

    /** The instance behind the overridable (instance) methods; tests swap it with {@link #setInstance}. */
    private static volatile Utils instance = new Utils();
    private static final java.util.Set<String> LOCALHOST_ADDRESSES =
            java.util.Set.of("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1");
    private static final java.util.regex.Pattern XMX_PATTERN = java.util.regex.Pattern.compile("Xmx([0-9]+)([mkgMKG])");

    /** Replaces the instance behind the overridable methods; returns the previous one. */
    public static Utils setInstance(Utils u) {
        Utils old = instance;
        instance = u;
        return old;
    }

    /** Seconds since it was made (Storm's simulated time aware). */
    public static class UptimeComputer {
        int startTime;

        public UptimeComputer() {
            startTime = Time.currentTimeSecs();
        }

        public int upTime() {
            return Time.deltaSecs(startTime);
        }
    }

    public static UptimeComputer makeUptimeComputer() {
        return instance.makeUptimeComputerImpl();
    }

    public UptimeComputer makeUptimeComputerImpl() {
        return new UptimeComputer();
    }

    /** The thread {@link #asyncLoop} runs its function on. */
    public static class SmartThread extends Thread {
        public boolean isSleeping() {
            return Time.isThreadWaiting(this);
        }

        public SmartThread(Runnable r) {
            super(r);
        }
    }

    /**
     * Runs {@code afn} in a loop on a new thread: each call returns the milliseconds to
     * sleep before the next call, or null to stop. With {@code isFactory}, {@code afn} is
     * called once (now) and returns the function to loop. An interrupt ends the loop
     * quietly; any other exception goes to {@code eh} (by default: log and exit the process).
     */
    @SuppressWarnings("unchecked")
    public static SmartThread asyncLoop(final java.util.concurrent.Callable afn, boolean isDaemon,
                                        final Thread.UncaughtExceptionHandler eh, int priority,
                                        final boolean isFactory, boolean startImmediately, String threadName) {
        final java.util.concurrent.Callable<Long> fn;
        try {
            fn = isFactory ? (java.util.concurrent.Callable<Long>) afn.call() : afn;
        } catch (Exception e) {
            throw wrapInRuntime(e);
        }
        SmartThread thread = new SmartThread(() -> {
            try {
                while (true) {
                    Long sleepMs = fn.call();
                    if (sleepMs == null) {
                        return;
                    }
                    if (sleepMs > 0) {
                        Time.sleep(sleepMs);
                    }
                }
            } catch (Throwable t) {
                if (exceptionCauseIsInstanceOf(InterruptedException.class, t)
                        || exceptionCauseIsInstanceOf(java.nio.channels.ClosedByInterruptException.class, t)) {
                    LOG.info("Async loop interrupted!");
                    return;
                }
                LOG.error("Async loop died!", t);
                throw new RuntimeException(t);
            }
        });
        thread.setUncaughtExceptionHandler(eh != null ? eh : (t, e) -> {
            LOG.error("Async loop died!", e);
            exitProcess(1, "Async loop died!");
        });
        thread.setDaemon(isDaemon);
        thread.setPriority(priority);
        if (threadName != null && !threadName.isEmpty()) {
            thread.setName(thread.getName() + "-" + threadName);
        }
        if (startImmediately) {
            thread.start();
        }
        return thread;
    }

    public static SmartThread asyncLoop(java.util.concurrent.Callable afn, String threadName,
                                        Thread.UncaughtExceptionHandler eh) {
        return asyncLoop(afn, false, eh, Thread.NORM_PRIORITY, false, true, threadName);
    }

    public static SmartThread asyncLoop(java.util.concurrent.Callable afn) {
        return asyncLoop(afn, false, null, Thread.NORM_PRIORITY, false, true, null);
    }

    /**
     * A handler that ends the JVM on a thread's death: {@link #handleUncaughtException}
     * (an out-of-memory error halts at once), then, for the {@link Error} it throws, logs and
     * exits with -2.
     */
    public static Thread.UncaughtExceptionHandler createDefaultUncaughtExceptionHandler() {
        return (thread, thrown) -> {
            try {
                handleUncaughtException(thrown);
            } catch (Error err) {
                LOG.error("Received error in thread {}.. terminating server...", thread.getName(), err);
                Runtime.getRuntime().exit(-2);
            }
        };
    }

    /** The worker's handler: as the default one, with {@link #handleWorkerUncaughtException}. */
    public static Thread.UncaughtExceptionHandler createWorkerUncaughtExceptionHandler() {
        return (thread, thrown) -> {
            try {
                handleWorkerUncaughtException(thrown);
            } catch (Error err) {
                LOG.error("Received error in thread {}.. terminating worker...", thread.getName(), err);
                Runtime.getRuntime().exit(-2);
            }
        };
    }

    public static void setupDefaultUncaughtExceptionHandler() {
        Thread.setDefaultUncaughtExceptionHandler(createDefaultUncaughtExceptionHandler());
    }

    public static void setupWorkerUncaughtExceptionHandler() {
        Thread.setDefaultUncaughtExceptionHandler(createWorkerUncaughtExceptionHandler());
    }

    /**
     * A worker thread died: as {@link #handleUncaughtException(Throwable)}, but also swallowing
     * the exceptions a worker tolerates (Hadoop's UserGroupInformation NPE from a {@code run}).
     */
    public static void handleWorkerUncaughtException(Throwable t) {
        handleUncaughtException(t, DEFAULT_ALLOWED_EXCEPTIONS, true);
    }

    /** What a worker does when it must die: exit the process. */
    public static Runnable mkSuicideFn() {
        return () -> exitProcess(1, "Worker died");
    }

    /** The first element the predicate accepts, or null. */
    public static <T> T findOne(IPredicate<T> pred, java.util.Collection<T> coll) {
        if (coll == null) {
            return null;
        }
        for (T t : coll) {
            if (pred.test(t)) {
                return t;
            }
        }
        return null;
    }

    /** As Storm: the predicate is applied to the map's entries ({@code Map.Entry}), and the matching entry returned. */
    @SuppressWarnings("unchecked")
    public static <T, U> T findOne(IPredicate<T> pred, Map<U, T> map) {
        if (map == null) {
            return null;
        }
        return findOne(pred, (java.util.Set<T>) (java.util.Set<?>) map.entrySet());
    }

    /** {@code [[k, v], ...]} to {@code v -> [k, ...]}. */
    public static Map<Object, List<Object>> reverseMap(List<List<Object>> listSeq) {
        Map<Object, List<Object>> ret = new HashMap<>();
        if (listSeq == null) {
            return ret;
        }
        for (List<Object> entry : listSeq) {
            ret.computeIfAbsent(entry.get(1), k -> new ArrayList<>()).add(entry.get(0));
        }
        return ret;
    }

    /** A copy of {@code m} with the value of {@code key} replaced by as many '#' as its string has characters. */
    public static Map<String, Object> redactValue(Map<String, Object> m, String key) {
        if (!m.containsKey(key)) {
            return m;
        }
        Map<String, Object> copy = new HashMap<>(m);
        Object v = copy.get(key);
        copy.put(key, "#".repeat(String.valueOf(v).length()));
        return copy;
    }

    public static boolean isLocalhostAddress(String address) {
        return LOCALHOST_ADDRESSES.contains(address);
    }

    /** The heap size in MB of the first -Xmx among the options (at least 1), else {@code defaultValue}. */
    public static Double parseJvmHeapMemByChildOpts(List<String> options, Double defaultValue) {
        if (options == null) {
            return defaultValue;
        }
        for (String option : options) {
            if (option == null) {
                continue;
            }
            java.util.regex.Matcher m = XMX_PATTERN.matcher(option);
            if (m.find()) {
                double value = Long.parseLong(m.group(1));
                switch (Character.toLowerCase(m.group(2).charAt(0))) {
                    case 'k':
                        value = value / 1024.0;
                        break;
                    case 'g':
                        value = value * 1024.0;
                        break;
                    default:
                        break;
                }
                return Math.max(1.0, value);
            }
        }
        return defaultValue;
    }

    /** Logs every line of {@code in} at info, prefixed; returns at its end. */
    public static void readAndLogStream(String prefix, InputStream in) {
        try (java.io.BufferedReader r = new java.io.BufferedReader(
                new java.io.InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                LOG.info("{}:{}", prefix, line);
            }
        } catch (IOException e) {
            LOG.warn("Error while trying to log stream", e);
        }
    }

    /** Marks the topology with the Storm and JDK versions that built it, unless already set. */
    public static org.apache.storm.generated.StormTopology addVersions(org.apache.storm.generated.StormTopology topology) {
        if (!topology.is_set_storm_version()) {
            topology.set_storm_version(org.apache.storm.topology.TopologyBuilder.STORM_VERSION);
        }
        if (!topology.is_set_jdk_version()) {
            topology.set_jdk_version(System.getProperty("java.version"));
        }
        return topology;
    }

    /**
     * The cycles among the components of {@code topology} (each as the list of component
     * ids around it), found from every spout by depth-first search over the subscriptions.
     */
    public static List<List<String>> findComponentCycles(org.apache.storm.generated.StormTopology topology,
                                                         String topoId) {
        Map<String, java.util.Set<String>> downstream = new java.util.TreeMap<>();
        java.util.Set<String> spouts = new java.util.TreeSet<>();
        if (topology.get_spouts() != null) {
            spouts.addAll(topology.get_spouts().keySet());
            for (String s : spouts) {
                downstream.computeIfAbsent(s, k -> new java.util.TreeSet<>());
            }
        }
        if (topology.get_bolts() != null) {
            topology.get_bolts().forEach((id, bolt) -> {
                downstream.computeIfAbsent(id, k -> new java.util.TreeSet<>());
                if (bolt.get_common() != null && bolt.get_common().get_inputs() != null) {
                    for (GlobalStreamId in : bolt.get_common().get_inputs().keySet()) {
                        downstream.computeIfAbsent(in.get_componentId(), k -> new java.util.TreeSet<>()).add(id);
                    }
                }
            });
        }
        List<List<String>> cycles = new ArrayList<>();
        java.util.Set<String> done = new java.util.HashSet<>();
        // As Storm: the graph is walked from the spouts only (a topology without spouts reports
        // none), and a component closes at most one cycle (its first subscriber on the path).
        if (spouts.isEmpty()) {
            LOG.error("Topology {} does not contain any spouts, cannot traverse graph to determine cycles", topoId);
        }
        for (String root : spouts) {
            if (!done.contains(root)) {
                findCycles(root, downstream, new ArrayList<>(), new java.util.HashSet<>(), done, cycles);
            }
        }
        java.util.Set<String> unreachable = new java.util.TreeSet<>(downstream.keySet());
        unreachable.removeAll(done);
        if (!spouts.isEmpty() && !unreachable.isEmpty()) {
            LOG.warn("Topology {} contains unreachable components \"{}\"", topoId, String.join(",", unreachable));
        }
        if (!cycles.isEmpty()) {
            LOG.error("Topology {} contains cycles {}", topoId, cycles);
        }
        return cycles;
    }

    private static void findCycles(String node, Map<String, java.util.Set<String>> downstream, List<String> path,
                                   java.util.Set<String> onPath, java.util.Set<String> done,
                                   List<List<String>> cycles) {
        path.add(node);
        onPath.add(node);
        for (String next : downstream.getOrDefault(node, java.util.Set.of())) {
            if (onPath.contains(next)) {
                cycles.add(new ArrayList<>(path.subList(path.indexOf(next), path.size())));
                break;
            } else if (!done.contains(next)) {
                findCycles(next, downstream, path, onPath, done, cycles);
            }
        }
        onPath.remove(node);
        path.remove(path.size() - 1);
        done.add(node);
    }

    /** Refuses a topology whose components form a cycle, naming the cycles. */
    public static void validateCycleFree(org.apache.storm.generated.StormTopology topology, String name)
            throws org.apache.storm.generated.InvalidTopologyException {
        List<List<String>> cycles = findComponentCycles(topology, name);
        if (!cycles.isEmpty()) {
            List<String> parts = new ArrayList<>();
            for (List<String> c : cycles) {
                parts.add(String.join(",", c));
            }
            throw new org.apache.storm.generated.InvalidTopologyException("Topology " + name
                    + " contains cycles in components \"" + String.join(" ; ", parts) + "\"");
        }
    }

    /**
     * The Storm versions of {@code supervisor.worker.version.classpath.map} (version to
     * classpath), each with the version info found on its classpath; a classpath without one is
     * left out (logged).
     */
    public static java.util.NavigableMap<String, IVersionInfo> getAlternativeVersionsMap(Map<String, Object> conf) {
        java.util.TreeMap<String, IVersionInfo> ret = new java.util.TreeMap<>();
        Object m = conf == null ? null : conf.get("supervisor.worker.version.classpath.map");
        if (m instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) m).entrySet()) {
                String cp = e.getValue() == null ? null : String.valueOf(e.getValue());
                IVersionInfo info = VersionInfo.getFromClasspath(cp);
                if (info == null) {
                    LOG.warn("No Storm version info found on the classpath {} configured for version {}", cp, e.getKey());
                } else {
                    ret.put(String.valueOf(e.getKey()), info);
                }
            }
        }
        return ret;
    }

    /** {@code supervisor.worker.version.classpath.map} (version to classpath), plus this version with {@code currentClassPath}. */
    public static java.util.NavigableMap<SimpleVersion, List<String>> getConfiguredClasspathVersions(
            Map<String, Object> conf, List<String> currentClassPath) {
        java.util.TreeMap<SimpleVersion, List<String>> ret = new java.util.TreeMap<>();
        Object m = conf == null ? null : conf.get("supervisor.worker.version.classpath.map");
        if (m instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) m).entrySet()) {
                ret.put(new SimpleVersion(String.valueOf(e.getKey())),
                        java.util.Arrays.asList(String.valueOf(e.getValue()).split(File.pathSeparator)));
            }
        }
        ret.put(new SimpleVersion(org.apache.storm.topology.TopologyBuilder.STORM_VERSION), currentClassPath);
        return ret;
    }

    /** {@code supervisor.worker.version.main.map}, plus this version's worker main class. */
    public static java.util.NavigableMap<SimpleVersion, String> getConfiguredWorkerMainVersions(Map<String, Object> conf) {
        return versionMap(conf, "supervisor.worker.version.main.map", "org.apache.storm.daemon.worker.Worker");
    }

    /** {@code supervisor.worker.version.logwriter.map}, plus this version's log writer class. */
    public static java.util.NavigableMap<SimpleVersion, String> getConfiguredWorkerLogWriterVersions(
            Map<String, Object> conf) {
        return versionMap(conf, "supervisor.worker.version.logwriter.map", "org.apache.storm.LogWriter");
    }

    private static java.util.NavigableMap<SimpleVersion, String> versionMap(Map<String, Object> conf, String key,
                                                                         String current) {
        java.util.TreeMap<SimpleVersion, String> ret = new java.util.TreeMap<>();
        Object m = conf == null ? null : conf.get(key);
        if (m instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) m).entrySet()) {
                ret.put(new SimpleVersion(String.valueOf(e.getKey())), String.valueOf(e.getValue()));
            }
        }
        ret.put(new SimpleVersion(org.apache.storm.topology.TopologyBuilder.STORM_VERSION), current);
        return ret;
    }

    /**
     * The value for the lowest version at or above {@code desiredVersion} with the same major
     * version, else the highest below it with the same major, else {@code defaultValue}.
     */
    public static <T> T getCompatibleVersion(java.util.NavigableMap<SimpleVersion, T> versionedMap,
                                             SimpleVersion desiredVersion, String what, T defaultValue) {
        Map.Entry<SimpleVersion, T> ret = versionedMap.ceilingEntry(desiredVersion);
        if (ret == null || ret.getKey().getMajor() != desiredVersion.getMajor()) {
            ret = versionedMap.floorEntry(desiredVersion);
            if (ret == null || ret.getKey().getMajor() != desiredVersion.getMajor()) {
                if (defaultValue != null) {
                    LOG.warn("Could not find any compatible {} falling back to using {}", what, defaultValue);
                }
                return defaultValue;
            }
            LOG.warn("Could not find a higher compatible version for {} {}, using {} instead", what, desiredVersion,
                    ret.getKey());
        }
        return ret.getValue();
    }

    /**
     * {@code conf} over the {@code defaults.yaml} found on {@code cp} (a classpath of jars
     * and directories): the config a worker of that classpath would see. {@code conf}
     * itself when {@code cp} is empty or holds no defaults.
     */
    public static Map<String, Object> getConfigFromClasspath(List<String> cp, Map<String, Object> conf)
            throws IOException {
        if (cp == null || cp.isEmpty()) {
            return conf;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : cp) {
            urls.add(new File(entry).toURI().toURL());
        }
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(urls.toArray(new URL[0]), null)) {
            URL defaults = loader.getResource("defaults.yaml");
            if (defaults == null) {
                return conf;
            }
            Map<String, Object> ret;
            try (InputStream in = defaults.openStream()) {
                ret = readYaml(in, defaults.toString());
            }
            if (conf != null) {
                ret.putAll(conf);
            }
            return ret;
        }
    }

    /** Egret has no blob store: always throws, naming the feature. */
    public static org.apache.storm.blobstore.ClientBlobStore getClientBlobStore(Map<String, Object> conf) {
        throw new UnsupportedOperationException("The Storm blob store (client.blobstore.class) is not supported"
                + " by Egret: ship files in the topology jar or read them from a shared path");
    }

    /**
     * Accepts a topology without {@code topology.blobstore.map}; Egret has no blob store to look up
     * the blobs of one that has (the two-argument forms check the blobs in the store they are given).
     */
    public static void validateTopologyBlobStoreMap(Map<String, Object> topoConf)
            throws org.apache.storm.generated.InvalidTopologyException, org.apache.storm.generated.AuthorizationException {
        Map<String, Map<String, Object>> blobs = topologyBlobs(topoConf);
        if (!blobs.isEmpty()) {
            throw new org.apache.storm.generated.InvalidTopologyException("topology.blobstore.map names blobs "
                    + blobs.keySet() + " but the Storm blob store is not supported by Egret");
        }
    }

    /** Checks that every blob of {@code topology.blobstore.map} exists in {@code client} and that its options are valid. */
    public static void validateTopologyBlobStoreMap(Map<String, Object> topoConf,
                                                    org.apache.storm.blobstore.NimbusBlobStore client)
            throws org.apache.storm.generated.InvalidTopologyException, org.apache.storm.generated.AuthorizationException {
        for (Map.Entry<String, Map<String, Object>> blob : topologyBlobs(topoConf).entrySet()) {
            try {
                client.getBlobMeta(blob.getKey());
            } catch (org.apache.storm.generated.KeyNotFoundException e) {
                throw blobNotFound(blob.getKey());
            }
            validateBlobOptions(blob.getKey(), blob.getValue());
        }
    }

    /** Checks that every blob of {@code topology.blobstore.map} exists in {@code blobStore} and that its options are valid. */
    public static void validateTopologyBlobStoreMap(Map<String, Object> topoConf,
                                                    org.apache.storm.blobstore.BlobStore blobStore)
            throws org.apache.storm.generated.InvalidTopologyException, org.apache.storm.generated.AuthorizationException {
        javax.security.auth.Subject subject = org.apache.storm.security.auth.ReqContext.context().subject();
        for (Map.Entry<String, Map<String, Object>> blob : topologyBlobs(topoConf).entrySet()) {
            try {
                blobStore.getBlobMeta(blob.getKey(), subject);
            } catch (org.apache.storm.generated.KeyNotFoundException e) {
                throw blobNotFound(blob.getKey());
            }
            validateBlobOptions(blob.getKey(), blob.getValue());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> topologyBlobs(Map<String, Object> topoConf)
            throws org.apache.storm.generated.InvalidTopologyException {
        Object map = topoConf == null ? null : topoConf.get("topology.blobstore.map");
        if (map == null) {
            return Collections.emptyMap();
        }
        if (!(map instanceof Map)) {
            throw new org.apache.storm.generated.InvalidTopologyException(
                    "topology.blobstore.map must be a map from a blob key to its options, but was " + map);
        }
        Map<String, Map<String, Object>> ret = new java.util.LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) map).entrySet()) {
            Object options = e.getValue() == null ? Collections.emptyMap() : e.getValue();
            if (!(e.getKey() instanceof String) || !(options instanceof Map)) {
                throw new org.apache.storm.generated.InvalidTopologyException("topology.blobstore.map must map a blob"
                        + " key to a map of its options, but " + e.getKey() + " maps to " + e.getValue());
            }
            ret.put((String) e.getKey(), (Map<String, Object>) options);
        }
        return ret;
    }

    private static org.apache.storm.generated.InvalidTopologyException blobNotFound(String key) {
        return new org.apache.storm.generated.InvalidTopologyException("Key not found: " + key);
    }

    /** A blob's options: {@code localname} a string, {@code uncompress} and {@code workerRestart} booleans. */
    private static void validateBlobOptions(String key, Map<String, Object> options)
            throws org.apache.storm.generated.InvalidTopologyException {
        for (Map.Entry<String, Object> o : options.entrySet()) {
            Object v = o.getValue();
            boolean ok;
            switch (o.getKey()) {
                case "localname":
                    ok = v == null || v instanceof String;
                    break;
                case "uncompress":
                case "workerRestart":
                    ok = v == null || v instanceof Boolean;
                    break;
                default:
                    ok = true;
            }
            if (!ok) {
                throw new org.apache.storm.generated.InvalidTopologyException("Blob " + key + " of topology.blobstore.map:"
                        + " option " + o.getKey() + " has the wrong type: " + v + " (" + v.getClass().getSimpleName()
                        + "); localname is a string, uncompress and workerRestart are booleans");
            }
        }
    }

    /** Storm's topology ZooKeeper auth: {@code storm.zookeeper.topology.auth.scheme} set and non-empty. */
    public static boolean isZkAuthenticationConfiguredTopology(Map<String, Object> conf) {
        Object scheme = conf == null ? null : conf.get("storm.zookeeper.topology.auth.scheme");
        return scheme != null && !scheme.toString().isEmpty();
    }

    /** Storm's daemon ZooKeeper auth: a JAAS login config, or {@code storm.zookeeper.auth.scheme} set. */
    public static boolean isZkAuthenticationConfiguredStormServer(Map<String, Object> conf) {
        Object scheme = conf == null ? null : conf.get("storm.zookeeper.auth.scheme");
        return System.getProperty("java.security.auth.login.config") != null
                || (scheme != null && !scheme.toString().isEmpty());
    }

    /** {@code scheme:id} as a ZooKeeper Id. */
    public static org.apache.storm.shade.org.apache.zookeeper.data.Id parseZkId(String id, String configName) {
        String[] split = id.split(":", 2);
        if (split.length != 2) {
            throw new IllegalArgumentException(configName + " does not appear to be in the form scheme:acl, "
                    + "i.e. sasl:storm-user");
        }
        return new org.apache.storm.shade.org.apache.zookeeper.data.Id(split[0], split[1]);
    }

    /** ZooKeeper's Perms.ALL (read, write, create, delete, admin). */
    private static final int ZK_PERMS_ALL = 31;

    /** All permissions for {@code storm.zookeeper.superACL}. */
    public static org.apache.storm.shade.org.apache.zookeeper.data.ACL getSuperUserAcl(Map<String, Object> conf) {
        Object user = conf == null ? null : conf.get("storm.zookeeper.superACL");
        if (user == null) {
            throw new IllegalArgumentException("Authentication is enabled but storm.zookeeper.superACL is not set");
        }
        return new org.apache.storm.shade.org.apache.zookeeper.data.ACL(ZK_PERMS_ALL,
                parseZkId(user.toString(), "storm.zookeeper.superACL"));
    }

    /** The ACL of a worker's ZooKeeper nodes: creator-all plus the super user; null without topology auth. */
    public static List<org.apache.storm.shade.org.apache.zookeeper.data.ACL> getWorkerACL(Map<String, Object> conf) {
        if (!isZkAuthenticationConfiguredTopology(conf)) {
            return null;
        }
        List<org.apache.storm.shade.org.apache.zookeeper.data.ACL> ret = new ArrayList<>();
        ret.add(new org.apache.storm.shade.org.apache.zookeeper.data.ACL(ZK_PERMS_ALL,
                new org.apache.storm.shade.org.apache.zookeeper.data.Id("auth", "")));
        ret.add(getSuperUserAcl(conf));
        return ret;
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

    /**
     * A thread died: an out-of-memory error halts the JVM at once; anything else is rethrown
     * as an {@link Error} caused by it (the uncaught exception handlers turn that into an exit).
     */
    public static void handleUncaughtException(Throwable t) {
        handleUncaughtException(t, DEFAULT_ALLOWED_EXCEPTIONS, false);
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

    /**
     * Whether a config survives a JSON round trip unchanged (what a topology config must do):
     * null, strings, booleans, numbers, lists and maps with string keys, nested; a character,
     * which JSON turns into a string, or any other object makes it invalid.
     */
    public static boolean isValidConf(Map<String, Object> topoConf) {
        String bad = firstNonJson(topoConf, "");
        if (bad != null) {
            LOG.warn("Topology conf is not valid: {}", bad);
            return false;
        }
        try {
            ConfigJson.validate(topoConf);
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("Topology conf is not valid: {}", e.getMessage());
            return false;
        }
    }

    /**
     * Whether {@code topoConfOut} (a conf after its JSON round trip) holds exactly the keys
     * and values of {@code topoConfIn}. Package-private, as Storm's (its tests call it).
     */
    static boolean isValidConf(Map<String, Object> topoConfIn, Map<String, Object> topoConfOut) {
        return topoConfIn.equals(topoConfOut);
    }

    /** What in {@code value} does not survive a JSON round trip, or null. */
    private static String firstNonJson(Object value, String path) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Number) {
            return null;
        }
        if (value instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                String at = path.isEmpty() ? String.valueOf(e.getKey()) : path + "." + e.getKey();
                if (!(e.getKey() instanceof String)) {
                    return at + ": the map key " + e.getKey() + " is not a string";
                }
                String bad = firstNonJson(e.getValue(), at);
                if (bad != null) {
                    return bad;
                }
            }
            return null;
        }
        if (value instanceof Iterable) {
            int i = 0;
            for (Object entry : (Iterable<?>) value) {
                String bad = firstNonJson(entry, path + "[" + i++ + "]");
                if (bad != null) {
                    return bad;
                }
            }
            return null;
        }
        return (path.isEmpty() ? "the config" : path) + ": " + value + " (" + value.getClass().getName()
                + ") does not survive a JSON round trip";
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

    /** Storm's {@code TOPOLOGY_NAME_REGEX}. */
    private static final java.util.regex.Pattern TOPOLOGY_NAME_REGEX = java.util.regex.Pattern.compile("^[^/.:\\\\]+$");

    /**
     * Storm's public check, as Storm 2.8.3 has it (same rule, exception and message). Egret's
     * submit path does not call it: the one rule egret applies is Rust's (it refuses the same
     * names, and control characters too), and its refusal reaches main as this exception.
     */
    public static void validateTopologyName(String name) throws IllegalArgumentException {
        if (name == null || !TOPOLOGY_NAME_REGEX.matcher(name).matches()) {
            throw new IllegalArgumentException("Topology name '" + name
                    + "' is not valid. It can't be null and it must match " + TOPOLOGY_NAME_REGEX);
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
        if (t instanceof OutOfMemoryError) {
            try {
                System.err.println("Halting due to Out Of Memory Error..." + Thread.currentThread().getName());
            } catch (Throwable ignored) {
                // halt regardless
            }
            Runtime.getRuntime().halt(-1);
        }
        for (Class<?> k : allowedExceptions) {
            if (exceptionCauseIsInstanceOf(k, t)) {
                LOG.info("Swallowing {} {}", t.getClass(), t);
                return;
            }
        }
        if (worker && isAllowedWorkerException(t)) {
            LOG.info("Swallowing {} {}", t.getClass(), t);
            return;
        }
        throw new Error(t);
    }

    /** Hadoop's UserGroupInformation throws an NPE from a {@code run} that a worker tolerates. */
    private static boolean isAllowedWorkerException(Throwable t) {
        if (t instanceof NullPointerException) {
            for (StackTraceElement e : t.getStackTrace()) {
                if (e.getClassName().startsWith("org.apache.hadoop.security.UserGroupInformation")
                        && e.getMethodName().equals("run")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static final java.util.Set<Class<?>> DEFAULT_ALLOWED_EXCEPTIONS = java.util.Collections.emptySet();

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

package org.apache.storm;

import dev.egret.client.Submitter;
import dev.egret.client.nimbus.LocalNimbus;
import dev.egret.proto.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.storm.cluster.IStormClusterState;
import org.apache.storm.generated.AlreadyAliveException;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.Credentials;
import org.apache.storm.generated.GetInfoOptions;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.Nimbus;
import org.apache.storm.generated.NotAliveException;
import org.apache.storm.generated.RebalanceOptions;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.SubmitOptions;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologyInitialStatus;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.thrift.TException;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's {@code LocalCluster} (storm-server 2.x shape) on Egret: there is no in-process
 * cluster; each topology is submitted to the {@code egret jar|local} command that started
 * this JVM, exactly as {@link StormSubmitter} does, and runs on the real local cluster.
 * Queries and kills go to the topology's master through {@link LocalNimbus}.
 *
 * <p>Semantics, and where they differ from Storm's in-process cluster:
 * <ul>
 *   <li>{@code submitTopology} returns once the topology master has published the physical
 *       plan (at most {@value #READY_TIMEOUT_MILLIS} ms), so that a main which sleeps N
 *       seconds after submitting sees most of N seconds of processing, as it does on Storm's
 *       in-process workers (Egret starts processes per container and a JVM per executor);</li>
 *   <li>{@code killTopology}, {@code shutdown} and {@code close} kill without waiting the
 *       message timeout (wait 0), and return once the topology is gone from the cluster;
 *       {@code killTopologyWithOpts} honours the wait it is given and also returns once the
 *       topology is gone;</li>
 *   <li>{@code shutdown}/{@code close} kill the topologies this object submitted that are
 *       still running, and nothing else;</li>
 *   <li>members about ZooKeeper, simulated time, credentials, rebalancing and blobs throw
 *       {@link UnsupportedOperationException} naming the method.</li>
 * </ul>
 *
 * <p>Storm 1.x jars call {@code submitTopology} and {@code submitTopologyWithOpts} with a
 * {@code void} return: the build adds those descriptors to this class after compilation
 * (java-shim/src/build/java/VoidTwins.java, run at {@code process-classes}); they call the
 * methods below and discard the {@link LocalTopology}.
 */
public class LocalCluster implements ILocalCluster {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    /** Kill options with no wait, as Storm's. */
    public static final KillOptions KILL_NOW = new KillOptions();

    /** Longest wait in {@code submitTopology} for the topology's physical plan. */
    static final long READY_TIMEOUT_MILLIS = 60_000;
    /** Longest wait for a killed topology to leave the cluster, beyond its kill wait. */
    static final long GONE_TIMEOUT_MILLIS = 60_000;
    private static final long POLL_MILLIS = 100;

    static {
        KILL_NOW.set_wait_secs(0);
    }

    /** How a topology reaches egret: {@link Submitter#submit(String, Map, StormTopology)} in production. */
    @FunctionalInterface
    interface Submission {
        String submit(String name, Map<String, Object> conf, StormTopology topology)
                throws AlreadyAliveException, InvalidTopologyException;
    }

    private final Submission submission;
    private final LocalNimbus nimbus;
    private final Nimbus.Client client;
    /** Topologies this object submitted and has not seen killed: name to id. */
    private final Map<String, String> submitted = new LinkedHashMap<>();
    private long readyTimeoutMillis = READY_TIMEOUT_MILLIS;
    private boolean shutdown;

    /** A cluster handle on the local cluster of the egret command running this JVM. */
    public LocalCluster() throws Exception {
        this(Submitter::submit, new LocalNimbus((Map<String, Object>) null, LocalNimbus.DEFAULT_TIMEOUT_MILLIS));
    }

    /** Storm's cluster on an external ZooKeeper: Egret has none. */
    public LocalCluster(String zkHost, Long zkPort) throws Exception {
        throw new UnsupportedOperationException("LocalCluster(String zkHost, Long zkPort) is not supported by Egret "
                + "(no ZooKeeper); use new LocalCluster()");
    }

    LocalCluster(Submission submission, LocalNimbus nimbus) {
        this.submission = submission;
        this.nimbus = nimbus;
        this.client = new Nimbus.Client(nimbus);
    }

    /** For tests: how long {@code submitTopology} waits for the executors to report. */
    void setReadyTimeoutMillis(long millis) {
        this.readyTimeoutMillis = millis;
    }

    /**
     * Storm's {@code storm local} driver: runs {@code c}, then lets the topologies it
     * submitted run for {@code ttlSec} seconds, then kills those still running. On Egret
     * {@link StormSubmitter} already submits to the local cluster, so {@code c} runs as is.
     */
    public static <T> T withLocalModeOverride(Callable<T> c, long ttlSec) throws Exception {
        return withLocalModeOverride(c, ttlSec, null);
    }

    /** As {@link #withLocalModeOverride(Callable, long)}; the daemon config does not apply to Egret. */
    public static <T> T withLocalModeOverride(Callable<T> c, long ttlSec, Map<String, Object> daemonConf)
            throws Exception {
        if (daemonConf != null && !daemonConf.isEmpty()) {
            LOG.warn("Egret ignores the daemon config given to withLocalModeOverride: {}", daemonConf.keySet());
        }
        try (LocalCluster cluster = new LocalCluster()) {
            Set<String> before = cluster.runningIds();
            T result = c.call();
            for (String id : cluster.runningIds()) {
                if (!before.contains(id)) {
                    cluster.adopt(id);
                }
            }
            LOG.info("Letting the topologies run for {} s", ttlSec);
            Thread.sleep(Math.max(0, ttlSec) * 1000L);
            return result;
        }
    }

    /** The daemon config: Storm's {@code defaults.yaml} and Egret's cluster config. */
    public Map<String, Object> getDaemonConf() {
        return Utils.readStormConfig();
    }

    // ---- submission ----

    @Override
    public LocalTopology submitTopology(String topologyName, Map<String, Object> conf, StormTopology topology)
            throws TException {
        return submitTopologyWithOpts(topologyName, conf, topology, null);
    }

    @Override
    public LocalTopology submitTopologyWithOpts(String topologyName, Map<String, Object> conf, StormTopology topology,
            SubmitOptions submitOpts) throws TException {
        synchronized (this) {
            if (shutdown) {
                throw new IllegalStateException("LocalCluster.submitTopology: this cluster was shut down");
            }
        }
        if (submitOpts != null && submitOpts.get_initial_status() == TopologyInitialStatus.INACTIVE) {
            LOG.warn("Topology {} asked to start INACTIVE; Egret starts topologies active", topologyName);
        }
        String id = submission.submit(topologyName, conf, topology);
        synchronized (this) {
            submitted.put(topologyName, id);
        }
        awaitRunning(topologyName, id);
        return new LocalTopology(topologyName, topology);
    }

    /**
     * Waits until the topology master has published the physical plan ({@code physical.pb}):
     * every container's stream manager is up and the instances are being assigned. (Executor
     * statistics are no readiness signal: an idle spout, such as a FeederSpout not fed yet,
     * reports nothing.)
     */
    private void awaitRunning(String name, String id) {
        long started = System.currentTimeMillis();
        long deadline = started + readyTimeoutMillis;
        Path dir = nimbus.localDir().resolve("topologies").resolve(name);
        while (!Files.exists(dir.resolve("physical.pb"))) {
            if (!alive(name, id)) {
                LOG.warn("Topology {} is not alive any more", name);
                return;
            }
            if (System.currentTimeMillis() + POLL_MILLIS > deadline) {
                LOG.warn("Topology {} has no physical plan after {} ms; going on", name, readyTimeoutMillis);
                return;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LOG.info("Topology {} is running (physical plan after {} ms)", name, System.currentTimeMillis() - started);
    }

    // ---- kill and shutdown ----

    /** Kills the topology at once (no message-timeout wait) and returns once it is gone. */
    @Override
    public void killTopology(String topologyName) throws TException {
        killTopologyWithOpts(topologyName, KILL_NOW);
    }

    /** Kills the topology after the options' wait and returns once it is gone. */
    @Override
    public void killTopologyWithOpts(String name, KillOptions options) throws TException {
        String id = idOf(name);
        client.killTopologyWithOpts(name, options == null ? KILL_NOW : options);
        int waitSecs = options != null && options.is_set_wait_secs() ? Math.max(0, options.get_wait_secs()) : 30;
        awaitGone(name, id, waitSecs * 1000L + GONE_TIMEOUT_MILLIS);
        synchronized (this) {
            submitted.remove(name, id);
        }
    }

    private String idOf(String name) throws TException {
        return client.getTopologySummaryByName(name).get_id();
    }

    /** Whether a topology with this id is in the cluster's {@code topologies/} (not retired). */
    private boolean alive(String name, String id) {
        Path pb = nimbus.localDir().resolve("topologies").resolve(name).resolve("topology.pb");
        try {
            return Topology.parseFrom(Files.readAllBytes(pb)).getId().equals(id);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            // Being rewritten or unreadable: count it as present, the next poll decides.
            return true;
        }
    }

    private void awaitGone(String name, String id, long timeoutMillis) throws TException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (alive(name, id)) {
            if (System.currentTimeMillis() > deadline) {
                throw new TException("topology " + name + " (" + id + ") was still running " + timeoutMillis
                        + " ms after its kill");
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TException("interrupted while waiting for topology " + name + " to be killed", e);
            }
        }
    }

    /** Ids of the topologies in the cluster now. */
    private Set<String> runningIds() throws TException {
        Set<String> ids = new HashSet<>();
        for (TopologySummary s : client.getTopologySummaries()) {
            ids.add(s.get_id());
        }
        return ids;
    }

    /** Makes a topology submitted through StormSubmitter one this object kills on shutdown. */
    private void adopt(String id) throws TException {
        TopologySummary s = client.getTopologySummary(id);
        synchronized (this) {
            submitted.put(s.get_name(), id);
        }
    }

    /** Kills every topology this object submitted that is still running, then returns. */
    @Override
    public void shutdown() {
        Map<String, String> toKill;
        synchronized (this) {
            shutdown = true;
            toKill = new LinkedHashMap<>(submitted);
        }
        for (Map.Entry<String, String> t : toKill.entrySet()) {
            String name = t.getKey();
            String id = t.getValue();
            if (!alive(name, id)) {
                continue;
            }
            try {
                client.killTopologyWithOpts(name, KILL_NOW);
                awaitGone(name, id, GONE_TIMEOUT_MILLIS);
                LOG.info("Killed topology {} ({})", name, id);
            } catch (NotAliveException e) {
                // Killed by someone else meanwhile: gone is what we want.
            } catch (TException e) {
                LOG.error("LocalCluster.shutdown could not kill topology {} ({}): {}", name, id, e.getMessage());
            }
        }
        synchronized (this) {
            submitted.clear();
        }
    }

    @Override
    public void close() throws Exception {
        shutdown();
    }

    // ---- topology state and queries ----

    @Override
    public void activate(String topologyName) throws TException {
        client.activate(topologyName);
    }

    @Override
    public void deactivate(String topologyName) throws TException {
        client.deactivate(topologyName);
    }

    @Override
    public ClusterSummary getClusterInfo() throws TException {
        return client.getClusterInfo();
    }

    @Override
    public List<TopologySummary> getTopologySummaries() throws TException {
        return new ArrayList<>(client.getTopologySummaries());
    }

    @Override
    public TopologySummary getTopologySummaryByName(String name) throws TException {
        return client.getTopologySummaryByName(name);
    }

    @Override
    public TopologySummary getTopologySummary(String id) throws TException {
        return client.getTopologySummary(id);
    }

    @Override
    public TopologyInfo getTopologyInfo(String id) throws TException {
        return client.getTopologyInfo(id);
    }

    @Override
    public TopologyInfo getTopologyInfoByName(String name) throws TException {
        return client.getTopologyInfoByName(name);
    }

    @Override
    public TopologyInfo getTopologyInfoWithOpts(String id, GetInfoOptions options) throws TException {
        return client.getTopologyInfoWithOpts(id, options);
    }

    @Override
    public TopologyInfo getTopologyInfoByNameWithOpts(String name, GetInfoOptions options) throws TException {
        return client.getTopologyInfoByNameWithOpts(name, options);
    }

    /** The topology's merged config as JSON, read from its submitted plan. */
    @Override
    public String getTopologyConf(String id) throws TException {
        return planOf(id).getConfigJson();
    }

    private Topology planOf(String id) throws TException {
        String name = client.getTopologySummary(id).get_name();
        Path pb = nimbus.localDir().resolve("topologies").resolve(name).resolve("topology.pb");
        try {
            return Topology.parseFrom(Files.readAllBytes(pb));
        } catch (NoSuchFileException e) {
            throw new NotAliveException(id + " is not alive");
        } catch (IOException e) {
            throw new TException("cannot read " + pb + ": " + e.getMessage(), e);
        }
    }

    // ---- what Egret does not do ----

    private static UnsupportedOperationException unsupported(String method, String why) {
        return new UnsupportedOperationException("LocalCluster." + method + " is not supported by Egret: " + why);
    }

    @Override
    public StormTopology getTopology(String id) throws TException {
        throw unsupported("getTopology", "the submitted topology is kept as Egret's logical plan, not as a "
                + "StormTopology");
    }

    @Override
    public void uploadNewCredentials(String topologyName, Credentials creds) throws TException {
        throw unsupported("uploadNewCredentials", "Egret has no credentials");
    }

    @Override
    public void rebalance(String name, RebalanceOptions options) throws TException {
        throw unsupported("rebalance", "a topology's packing is fixed at submission");
    }

    @Override
    public IStormClusterState getClusterState() {
        throw unsupported("getClusterState", "Egret has no ZooKeeper cluster state");
    }

    @Override
    public void advanceClusterTime(int secs) throws InterruptedException {
        throw unsupported("advanceClusterTime", "Egret runs on real time (no simulated time)");
    }

    @Override
    public void advanceClusterTime(int secs, int step) throws InterruptedException {
        throw unsupported("advanceClusterTime", "Egret runs on real time (no simulated time)");
    }

    /** Tracked topologies are not supported: there is no tracking id. */
    @Override
    public String getTrackedId() {
        return null;
    }

    public void waitForIdle() throws InterruptedException {
        throw unsupported("waitForIdle", "Egret runs on real time (no simulated time)");
    }

    public void waitForIdle(long timeoutMs) throws InterruptedException {
        throw unsupported("waitForIdle", "Egret runs on real time (no simulated time)");
    }

    public int getThriftServerPort() {
        throw unsupported("getThriftServerPort", "there is no Nimbus Thrift server; use NimbusClient");
    }

    /** The submitted topologies still known to this object, name to id (a copy). */
    synchronized Map<String, String> submittedTopologies() {
        return new HashMap<>(submitted);
    }

    /**
     * A topology submitted through this cluster; closing it kills the topology (wait 0) and
     * returns once it is gone.
     */
    public class LocalTopology extends StormTopology implements ILocalTopology {
        private final String topoName;

        public LocalTopology(String topoName, StormTopology topo) {
            super(topo);
            this.topoName = topoName;
        }

        @Override
        public void close() throws TException {
            String id;
            synchronized (LocalCluster.this) {
                id = submitted.get(topoName);
            }
            if (id != null && !alive(topoName, id)) {
                synchronized (LocalCluster.this) {
                    submitted.remove(topoName, id);
                }
                return;
            }
            killTopologyWithOpts(topoName, KILL_NOW);
        }
    }
}

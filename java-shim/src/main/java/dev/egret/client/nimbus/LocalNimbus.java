package dev.egret.client.nimbus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.egret.proto.ClientRequest;
import dev.egret.proto.ClientResponse;
import dev.egret.proto.DebugRequest;
import dev.egret.proto.DetachedKillRequest;
import dev.egret.proto.Empty;
import dev.egret.proto.ExecutorStatsSummary;
import dev.egret.proto.LogConfigRequest;
import dev.egret.proto.LogLevelChange;
import dev.egret.proto.LoggerLevel;
import dev.egret.proto.PeerRole;
import dev.egret.proto.TaskStatsDelta;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologyState;
import dev.egret.proto.WindowedStats;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import dev.egret.wire.TopologyTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import org.apache.storm.generated.BoltStats;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.ErrorInfo;
import org.apache.storm.generated.ExecutorInfo;
import org.apache.storm.generated.ExecutorSpecificStats;
import org.apache.storm.generated.ExecutorStats;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.GetInfoOptions;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.LogConfig;
import org.apache.storm.generated.LogLevel;
import org.apache.storm.generated.LogLevelAction;
import org.apache.storm.generated.Nimbus;
import org.apache.storm.generated.NimbusSummary;
import org.apache.storm.generated.NotAliveException;
import org.apache.storm.generated.SpoutStats;
import org.apache.storm.generated.SupervisorSummary;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.thrift.TException;
import org.apache.storm.thrift.protocol.TBinaryProtocol;
import org.apache.storm.thrift.protocol.TProtocol;
import org.apache.storm.utils.Utils;

/**
 * Nimbus, answered from the local cluster: there is no Nimbus process in Egret but one
 * topology master (TM) per topology. The topologies are the directories
 * {@code <egret.local.dir>/topologies/<name>/}; for each, the TM's address is in
 * {@code tmaster.lock} (the local state manager's registration: empty while no TM is
 * registered) and the topology's credentials (token, CA, certificate, key) in
 * {@code credentials/} (see docs/internals/contracts.md). Each call opens one TLS connection
 * (TLS 1.3, mutually authenticated with the topology's certificate) per topology concerned:
 * hello (role CLIENT, proving the topology's token) inside it, one {@code ClientRequest}, one
 * {@code ClientResponse}.
 *
 * <p>{@code egret.local.dir} comes from the config given to {@code NimbusClient} (Storm's
 * {@code Utils.readStormConfig()} includes {@code EGRET_CLUSTER_CONFIG}, which carries it),
 * else from {@code EGRET_CLUSTER_CONFIG}, else {@code $EGRET_HOME/local}, else
 * {@code ~/.egret/local}.
 *
 * <p>A topology submitted a moment ago may not have a TM yet: a call concerning one topology
 * waits for its TM up to the client's timeout. Statistics are exact counts (Storm samples at
 * {@code topology.stats.sample.rate}; {@code ExecutorStats.rate} is 1.0 here).
 */
public final class LocalNimbus {
    /** The local state manager's registration of a topology's master: its {@code host:port}. */
    private static final String MASTER_REGISTRATION = "tmaster.lock";
    /** Egret's config key of the local cluster directory. */
    public static final String LOCAL_DIR_KEY = "egret.local.dir";
    /** Default time a call may take, including the wait for a starting topology's TM. */
    public static final int DEFAULT_TIMEOUT_MILLIS = 10_000;

    private static final long STARTED_MILLIS = System.currentTimeMillis();
    private static final int RETRY_MILLIS = 100;
    /** The topology's credentials directory, under its topology dir. */
    public static final String CREDENTIALS_DIR = "credentials";

    private final Path localDir;
    private final int timeoutMillis;

    public LocalNimbus(Map<String, Object> conf, int timeoutMillis) {
        this(resolveLocalDir(conf), timeoutMillis);
    }

    public LocalNimbus(Path localDir, int timeoutMillis) {
        this.localDir = localDir;
        this.timeoutMillis = timeoutMillis > 0 ? timeoutMillis : DEFAULT_TIMEOUT_MILLIS;
    }

    /**
     * A Thrift protocol whose far end is this cluster's Nimbus: calls written to it are
     * decoded and served by {@link LocalNimbusHandler} through {@link Nimbus.Processor}'s functions in this
     * JVM (see {@link InJvmTransport}). {@code new Nimbus.Client(protocol())} is the client
     * {@code NimbusClient.getClient()} returns.
     */
    public TProtocol protocol() {
        LocalNimbusHandler handler = new LocalNimbusHandler(this);
        return new TBinaryProtocol(new InJvmTransport(new QuietProcessor<>(handler, new Nimbus.Processor<>(handler))));
    }

    public Path localDir() {
        return localDir;
    }

    /** Where the local cluster lives, from the config, the environment, or the default. */
    public static Path resolveLocalDir(Map<String, Object> conf) {
        Object dir = conf == null ? null : conf.get(LOCAL_DIR_KEY);
        if (dir == null || dir.toString().isEmpty()) {
            dir = Utils.readEgretClusterConfig().get(LOCAL_DIR_KEY);
        }
        if (dir != null && !dir.toString().isEmpty()) {
            return Paths.get(dir.toString());
        }
        String home = System.getenv("EGRET_HOME");
        if (home == null || home.isEmpty()) {
            home = Paths.get(System.getProperty("user.home"), ".egret").toString();
        }
        return Paths.get(home, "local");
    }

    /** A topology directory and the logical plan read from it. */
    private record Handle(Path dir, Topology topology) {
    }

    private List<Handle> topologies() throws TException {
        List<Handle> out = new ArrayList<>();
        Path root = localDir.resolve("topologies");
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
            for (Path dir : dirs) {
                try {
                    out.add(new Handle(dir, Topology.parseFrom(Files.readAllBytes(dir.resolve("topology.pb")))));
                } catch (NoSuchFileException e) {
                    // Being created or retired right now: not a topology (yet, any more).
                } catch (InvalidProtocolBufferException e) {
                    throw new TException("cannot read " + dir.resolve("topology.pb") + ": " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new TException("cannot list the topologies in " + root + ": " + e.getMessage(), e);
        }
        out.sort((a, b) -> a.topology.getName().compareTo(b.topology.getName()));
        return out;
    }

    private Handle byName(String name) throws TException {
        for (Handle h : topologies()) {
            if (h.topology.getName().equals(name)) {
                return h;
            }
        }
        throw new NotAliveException(name + " is not alive");
    }

    private Handle byId(String id) throws TException {
        for (Handle h : topologies()) {
            if (h.topology.getId().equals(id)) {
                return h;
            }
        }
        throw new NotAliveException(id + " is not alive");
    }

    /** One request to the TM of {@code handle}, waiting for a starting TM within the timeout. */
    ClientResponse request(Handle handle, ClientRequest request) throws TException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        IOException last = null;
        while (true) {
            try {
                return exchange(handle.dir, request, (int) Math.max(1, deadline - System.currentTimeMillis()));
            } catch (NoSuchFileException e) {
                last = e;
                if (!Files.exists(handle.dir.resolve("topology.pb"))) {
                    throw new NotAliveException(handle.topology.getName() + " is not alive");
                }
            } catch (java.net.ConnectException e) {
                // A TM restarting: its old address refuses; the new one comes soon.
                last = e;
            } catch (IOException e) {
                throw new TException("the topology master of " + handle.topology.getName() + " failed: " + e.getMessage(), e);
            }
            if (System.currentTimeMillis() + RETRY_MILLIS > deadline) {
                throw new TException("the topology master of " + handle.topology.getName()
                        + " did not answer within " + timeoutMillis + " ms: " + last.getMessage(), last);
            }
            try {
                Thread.sleep(RETRY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TException("interrupted while waiting for the topology master", e);
            }
        }
    }

    private static ClientResponse exchange(Path dir, ClientRequest request, int timeoutMillis) throws IOException {
        String addr = Files.readString(dir.resolve(MASTER_REGISTRATION), StandardCharsets.UTF_8).strip();
        if (addr.isEmpty()) {
            // Between two masters (one released, the next not yet registered): wait as for a missing file.
            throw new NoSuchFileException(dir.resolve(MASTER_REGISTRATION).toString(), null,
                    "no topology master is registered");
        }
        int colon = addr.lastIndexOf(':');
        if (colon <= 0) {
            throw new IOException("malformed " + MASTER_REGISTRATION + ": '" + addr + "'");
        }
        String host = addr.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(addr.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IOException("malformed " + MASTER_REGISTRATION + ": '" + addr + "'", e);
        }
        Path credentials = dir.resolve(CREDENTIALS_DIR);
        byte[] token = TopologyTls.token(credentials);
        SSLContext tls = TopologyTls.context(credentials);
        try (FrameChannel channel = TopologyTls.connect(tls,
                new InetSocketAddress(host, port), dev.egret.client.Submitter.CLIENT_MAX_FRAME_BYTES, timeoutMillis)) {
            Handshake.connect(channel, token, PeerRole.PEER_ROLE_CLIENT, "nimbus-client");
            channel.write(request);
            return channel.read(ClientResponse.parser());
        }
    }

    private static ClientResponse checked(Handle handle, ClientResponse response) throws TException {
        if (response.getOk()) {
            return response;
        }
        String error = response.getError();
        if (error.contains("killed")) {
            throw new NotAliveException(handle.topology.getName() + " is not alive: " + error);
        }
        throw new TException("topology " + handle.topology.getName() + ": " + error);
    }

    private ClientResponse describe(Handle handle) throws TException {
        ClientRequest request = ClientRequest.newBuilder().setDescribe(Empty.getDefaultInstance()).build();
        return checked(handle, request(handle, request));
    }

    // ---- the Nimbus calls ----

    public ClusterSummary getClusterInfo() throws TException {
        ClusterSummary summary = new ClusterSummary();
        summary.set_topologies(getTopologySummaries());
        int uptime = (int) ((System.currentTimeMillis() - STARTED_MILLIS) / 1000);
        SupervisorSummary supervisor = new SupervisorSummary("localhost", uptime, 0, 0, "egret-local");
        supervisor.set_version(org.apache.storm.topology.TopologyBuilder.STORM_VERSION);
        int workers = 0;
        for (TopologySummary t : summary.get_topologies()) {
            workers += t.get_num_workers();
        }
        supervisor.set_num_workers(workers);
        supervisor.set_num_used_workers(workers);
        summary.set_supervisors(new ArrayList<>(List.of(supervisor)));
        NimbusSummary nimbus = new NimbusSummary("localhost", 0, uptime, true,
                org.apache.storm.topology.TopologyBuilder.STORM_VERSION);
        summary.set_nimbuses(new ArrayList<>(List.of(nimbus)));
        return summary;
    }

    public List<TopologySummary> getTopologySummaries() throws TException {
        List<TopologySummary> out = new ArrayList<>();
        for (Handle h : topologies()) {
            try {
                out.add(summary(h, describe(h).getSummary()));
            } catch (NotAliveException e) {
                // Killed or retired while we listed: not in the cluster any more.
            }
        }
        return out;
    }

    public TopologySummary getTopologySummaryByName(String name) throws TException {
        Handle h = byName(name);
        return summary(h, describe(h).getSummary());
    }

    public TopologySummary getTopologySummary(String id) throws TException {
        Handle h = byId(id);
        return summary(h, describe(h).getSummary());
    }

    public TopologyInfo getTopologyInfo(String id) throws TException {
        return info(byId(id));
    }

    public TopologyInfo getTopologyInfoByName(String name) throws TException {
        return info(byName(name));
    }

    public TopologyInfo getTopologyInfoWithOpts(String id, GetInfoOptions options) throws TException {
        return info(byId(id));
    }

    public TopologyInfo getTopologyInfoByNameWithOpts(String name, GetInfoOptions options) throws TException {
        return info(byName(name));
    }

    /** Storm's killTopology: waits the topology's message timeout before the kill. */
    public void killTopology(String name) throws TException {
        kill(name, DetachedKillRequest.newBuilder().setWaitMessageTimeout(true).build());
    }

    /** Storm's killTopologyWithOpts: returns at once; the TM kills after the wait. */
    public void killTopologyWithOpts(String name, KillOptions options) throws TException {
        DetachedKillRequest.Builder kill = DetachedKillRequest.newBuilder();
        if (options != null && options.is_set_wait_secs()) {
            kill.setWaitSecs(Math.max(0, options.get_wait_secs()));
        } else {
            kill.setWaitMessageTimeout(true);
        }
        kill(name, kill.build());
    }

    private void kill(String name, DetachedKillRequest kill) throws TException {
        Handle h = byName(name);
        checked(h, request(h, ClientRequest.newBuilder().setDetachedKill(kill).build()));
    }

    public void activate(String name) throws TException {
        Handle h = byName(name);
        checked(h, request(h, ClientRequest.newBuilder().setActivate(Empty.getDefaultInstance()).build()));
    }

    public void deactivate(String name) throws TException {
        Handle h = byName(name);
        checked(h, request(h, ClientRequest.newBuilder().setDeactivate(Empty.getDefaultInstance()).build()));
    }

    /**
     * Storm's debug: event logging of {@code component} (null or empty: every component of the
     * topology) on or off, {@code samplingPercentage} (0 to 100) of its emitted tuples, through
     * the topology master, which tells every instance of the component at once.
     */
    public void debug(String name, String component, boolean enable, double samplingPercentage) throws TException {
        Handle h = byName(name);
        DebugRequest debug = DebugRequest.newBuilder()
                .setComponent(component == null ? "" : component)
                .setEnable(enable)
                .setSamplingPct(enable ? samplingPercentage : 0.0)
                .build();
        checked(h, request(h, ClientRequest.newBuilder().setDebug(debug).build()));
    }

    /** A topology by id (as Storm's Nimbus takes it), else by name. */
    private Handle byIdOrName(String idOrName) throws TException {
        for (Handle h : topologies()) {
            if (h.topology.getId().equals(idOrName)) {
                return h;
            }
        }
        return byName(idOrName);
    }

    /**
     * Storm's setLogConfig: each named logger's UPDATE (level, optional timeout in seconds) or
     * REMOVE, all or nothing, through the topology master, which tells every instance JVM.
     * A bad level is refused with the master's message.
     */
    public void setLogConfig(String id, LogConfig config) throws TException {
        Handle h = byIdOrName(id);
        LogConfigRequest.Builder request = LogConfigRequest.newBuilder();
        if (config != null && config.is_set_named_logger_level()) {
            for (Map.Entry<String, LogLevel> e : new TreeMap<>(config.get_named_logger_level()).entrySet()) {
                LogLevel l = e.getValue();
                LogLevelChange.Builder change = LogLevelChange.newBuilder().setLogger(e.getKey());
                if (l.get_action() == LogLevelAction.REMOVE) {
                    change.setRemove(true);
                } else if (l.get_action() == LogLevelAction.UPDATE) {
                    change.setLevel(l.is_set_target_log_level() ? l.get_target_log_level() : "");
                    if (l.is_set_reset_log_level_timeout_secs()) {
                        change.setTimeoutSecs(l.get_reset_log_level_timeout_secs());
                    }
                } else {
                    continue;
                }
                request.addChanges(change);
            }
        }
        checked(h, request(h, ClientRequest.newBuilder().setSetLogConfig(request).build()));
    }

    /** Storm's getLogConfig: the loggers with a level of their own, as UPDATE entries. */
    public LogConfig getLogConfig(String id) throws TException {
        Handle h = byIdOrName(id);
        ClientResponse response = checked(h,
                request(h, ClientRequest.newBuilder().setLogConfig(Empty.getDefaultInstance()).build()));
        LogConfig out = new LogConfig();
        out.set_named_logger_level(new HashMap<>());
        for (LoggerLevel l : response.getLogLevelsList()) {
            LogLevel level = new LogLevel(LogLevelAction.UPDATE);
            level.set_target_log_level(l.getLevel());
            if (l.getTimeoutSecs() > 0) {
                level.set_reset_log_level_timeout_secs(l.getTimeoutSecs());
                level.set_reset_log_level_timeout_epoch(l.getResetEpochMs());
            }
            out.put_to_named_logger_level(l.getLogger(), level);
        }
        return out;
    }

    public boolean isTopologyNameAllowed(String name) throws TException {
        if (name == null || name.isEmpty() || name.contains("/") || name.contains(".") || name.contains(":")
                || name.contains("\\")) {
            return false;
        }
        for (Handle h : topologies()) {
            if (h.topology.getName().equals(name)) {
                return false;
            }
        }
        return true;
    }

    public NimbusSummary getLeader() throws TException {
        return getClusterInfo().get_nimbuses().get(0);
    }

    // ---- mapping to Storm's structs ----

    /** Storm's status strings. */
    static String status(dev.egret.proto.TopologySummary s) {
        if (s.getKilling() || s.getState() == TopologyState.TOPOLOGY_STATE_KILLED) {
            return "KILLED";
        }
        return s.getState() == TopologyState.TOPOLOGY_STATE_DEACTIVATED ? "INACTIVE" : "ACTIVE";
    }

    private static TopologySummary summary(Handle h, dev.egret.proto.TopologySummary s) {
        TopologySummary out = new TopologySummary(
                s.getId().isEmpty() ? h.topology.getId() : s.getId(),
                s.getName().isEmpty() ? h.topology.getName() : s.getName(),
                s.getNumTasks(), s.getNumExecutors(), s.getNumContainers(),
                (int) Math.min(Integer.MAX_VALUE, s.getUptimeSecs()), status(s));
        if (!h.topology.getStormVersion().isEmpty()) {
            out.set_storm_version(h.topology.getStormVersion());
        }
        out.set_owner(System.getProperty("user.name", ""));
        out.set_sched_status("");
        out.set_replication_count(1);
        return out;
    }

    private TopologyInfo info(Handle h) throws TException {
        ClientResponse response = checked(h,
                request(h, ClientRequest.newBuilder().setTopologyInfo(Empty.getDefaultInstance()).build()));
        return topologyInfo(h.topology, response);
    }

    /** Builds Storm's TopologyInfo from a TM's answer to {@code topology_info}. */
    public static TopologyInfo topologyInfo(Topology topology, ClientResponse response) {
        dev.egret.proto.TopologySummary s = response.getSummary();
        List<ExecutorSummary> executors = new ArrayList<>();
        for (ExecutorStatsSummary e : response.getExecutorsList()) {
            executors.add(executor(e));
        }
        TopologyInfo info = new TopologyInfo(
                s.getId().isEmpty() ? topology.getId() : s.getId(),
                s.getName().isEmpty() ? topology.getName() : s.getName(),
                (int) Math.min(Integer.MAX_VALUE, s.getUptimeSecs()), executors, status(s),
                errors(response));
        if (!topology.getStormVersion().isEmpty()) {
            info.set_storm_version(topology.getStormVersion());
        }
        info.set_owner(System.getProperty("user.name", ""));
        info.set_sched_status("");
        info.set_replication_count(1);
        return info;
    }

    /** The errors the master kept, per component, oldest first (as Storm lists them). */
    static Map<String, List<ErrorInfo>> errors(ClientResponse response) {
        Map<String, List<ErrorInfo>> errors = new HashMap<>();
        for (dev.egret.proto.ComponentError e : response.getErrorsList()) {
            ErrorInfo info = new ErrorInfo(e.getError(), (int) Math.min(Integer.MAX_VALUE, e.getTimeSecs()));
            info.set_host(e.getHost());
            info.set_port(e.getPort());
            errors.computeIfAbsent(e.getComponent(), c -> new ArrayList<>()).add(info);
        }
        return errors;
    }

    static ExecutorSummary executor(ExecutorStatsSummary e) {
        ExecutorSummary out = new ExecutorSummary(new ExecutorInfo(e.getTaskStart(), e.getTaskEnd()),
                e.getComponent(), e.getHost(), e.getPort(), (int) Math.min(Integer.MAX_VALUE, e.getUptimeSecs()));
        // As Storm: no stats until the executor's first report.
        if (e.getReported()) {
            out.set_stats(stats(e));
        }
        return out;
    }

    static ExecutorStats stats(ExecutorStatsSummary e) {
        Map<String, Map<String, Long>> emitted = new HashMap<>();
        Map<String, Map<String, Long>> transferred = new HashMap<>();
        Map<String, Map<String, Long>> acked = new HashMap<>();
        Map<String, Map<String, Long>> failed = new HashMap<>();
        Map<String, Map<String, Double>> completeAvg = new HashMap<>();
        Map<String, Map<GlobalStreamId, Long>> boltAcked = new HashMap<>();
        Map<String, Map<GlobalStreamId, Long>> boltFailed = new HashMap<>();
        Map<String, Map<GlobalStreamId, Long>> executed = new HashMap<>();
        Map<String, Map<GlobalStreamId, Double>> processAvg = new HashMap<>();
        Map<String, Map<GlobalStreamId, Double>> executeAvg = new HashMap<>();
        for (WindowedStats w : e.getWindowsList()) {
            String window = w.getWindow();
            TaskStatsDelta sums = w.getSums();
            emitted.put(window, new HashMap<>(sums.getEmittedMap()));
            transferred.put(window, new HashMap<>(sums.getTransferredMap()));
            if (e.getIsSpout()) {
                // Every output stream appears (0 when nothing was acked on it), so that a
                // latency exists for every acked key and an idle spout averages to 0.
                Map<String, Long> a = new TreeMap<>();
                Map<String, Long> f = new TreeMap<>();
                for (String stream : sums.getEmittedMap().keySet()) {
                    a.put(stream, 0L);
                    f.put(stream, 0L);
                }
                a.putAll(sums.getAckedMap());
                f.putAll(sums.getFailedMap());
                for (String stream : a.keySet()) {
                    f.putIfAbsent(stream, 0L);
                }
                Map<String, Double> latency = new HashMap<>();
                for (Map.Entry<String, Long> entry : a.entrySet()) {
                    latency.put(entry.getKey(), average(sums.getCompleteMsSumMap().get(entry.getKey()), entry.getValue()));
                }
                acked.put(window, new HashMap<>(a));
                failed.put(window, new HashMap<>(f));
                completeAvg.put(window, latency);
            } else {
                Map<GlobalStreamId, Long> a = new HashMap<>();
                Map<GlobalStreamId, Long> f = new HashMap<>();
                Map<GlobalStreamId, Long> x = new HashMap<>();
                Map<GlobalStreamId, Double> p = new HashMap<>();
                Map<GlobalStreamId, Double> xa = new HashMap<>();
                sums.getAckedMap().forEach((k, v) -> a.put(streamId(k), v));
                sums.getFailedMap().forEach((k, v) -> f.put(streamId(k), v));
                sums.getExecutedMap().forEach((k, v) -> x.put(streamId(k), v));
                sums.getAckedMap().forEach((k, v) -> p.put(streamId(k), average(sums.getProcessMsSumMap().get(k), v)));
                sums.getExecutedMap().forEach((k, v) -> xa.put(streamId(k), average(sums.getExecuteMsSumMap().get(k), v)));
                boltAcked.put(window, a);
                boltFailed.put(window, f);
                executed.put(window, x);
                processAvg.put(window, p);
                executeAvg.put(window, xa);
            }
        }
        ExecutorSpecificStats specific = e.getIsSpout()
                ? ExecutorSpecificStats.spout(new SpoutStats(acked, failed, completeAvg))
                : ExecutorSpecificStats.bolt(new BoltStats(boltAcked, boltFailed, processAvg, executed, executeAvg));
        // rate is Storm's sampling rate: Egret counts every event.
        return new ExecutorStats(emitted, transferred, specific, 1.0);
    }

    private static double average(Double sum, long count) {
        return sum == null || count <= 0 ? 0.0 : sum / count;
    }

    /** "<component>:<stream>" (the component id may itself contain ':'; stream ids rarely do). */
    static GlobalStreamId streamId(String key) {
        int colon = key.lastIndexOf(':');
        return colon < 0 ? new GlobalStreamId(key, "default") : new GlobalStreamId(key.substring(0, colon), key.substring(colon + 1));
    }
}

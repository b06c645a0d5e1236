package dev.egret.client.nimbus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.ClientRequest;
import dev.egret.proto.ClientResponse;
import dev.egret.proto.ExecutorStatsSummary;
import dev.egret.proto.Hello;
import dev.egret.proto.PeerRole;
import dev.egret.proto.TaskStatsDelta;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologyState;
import dev.egret.proto.WindowedStats;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.HelloServer;
import dev.egret.wire.TestTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLServerSocket;
import org.apache.storm.generated.BoltStats;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.ErrorInfo;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.Nimbus;
import org.apache.storm.generated.NotAliveException;
import org.apache.storm.generated.SpoutStats;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.thrift.TException;
import org.apache.storm.utils.NimbusClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NimbusClient against a fake topology master: the topology dir layout of the contract, the
 * hello with the topology's token, one request per connection, and the mapping of the TM's
 * answers to Storm's structs.
 */
class LocalNimbusTest {
    private static final byte[] TOKEN = TestTls.token("topology");

    @TempDir
    Path local;

    private SSLServerSocket server;
    private Thread acceptor;
    private final List<ClientRequest> requests = new CopyOnWriteArrayList<>();
    private final List<Hello> hellos = new CopyOnWriteArrayList<>();
    private volatile TopologyState state = TopologyState.TOPOLOGY_STATE_RUNNING;
    private volatile boolean killing;

    private static TaskStatsDelta sums(Map<String, Long> emitted, Map<String, Long> acked, Map<String, Double> completeSum,
            Map<String, Long> executed, Map<String, Double> executeSum) {
        return TaskStatsDelta.newBuilder().putAllEmitted(emitted).putAllTransferred(emitted).putAllAcked(acked)
                .putAllCompleteMsSum(completeSum).putAllExecuted(executed).putAllExecuteMsSum(executeSum).build();
    }

    private ClientResponse answer(ClientRequest request) {
        dev.egret.proto.TopologySummary.Builder summary = dev.egret.proto.TopologySummary.newBuilder()
                .setName("wc").setId("wc-1-1").setNumContainers(2).setNumExecutors(3).setNumTasks(4)
                .setUptimeSecs(42).setState(state).setKilling(killing);
        ClientResponse.Builder response = ClientResponse.newBuilder().setOk(true);
        switch (request.getRequestCase()) {
            case DETACHED_KILL:
                state = TopologyState.TOPOLOGY_STATE_DEACTIVATED;
                killing = true;
                summary.setKilling(true).setState(state);
                break;
            case DEACTIVATE:
                state = TopologyState.TOPOLOGY_STATE_DEACTIVATED;
                summary.setState(state);
                break;
            case TOPOLOGY_INFO:
                ExecutorStatsSummary.Builder spout = ExecutorStatsSummary.newBuilder().setInstanceId("spout-0")
                        .setComponent("spout").setTaskStart(4).setTaskEnd(5).setHost("localhost").setPort(1)
                        .setUptimeSecs(30).setIsSpout(true).setReported(true);
                ExecutorStatsSummary.Builder bolt = ExecutorStatsSummary.newBuilder().setInstanceId("count-0")
                        .setComponent("count").setTaskStart(1).setTaskEnd(3).setHost("localhost").setPort(2)
                        .setUptimeSecs(29).setIsSpout(false).setReported(true);
                for (String window : List.of(":all-time", "600", "10800", "86400")) {
                    spout.addWindows(WindowedStats.newBuilder().setWindow(window).setSums(sums(
                            Map.of("default", 100L, "idle", 3L), Map.of("default", 40L), Map.of("default", 100.0),
                            Map.of(), Map.of())));
                    bolt.addWindows(WindowedStats.newBuilder().setWindow(window).setSums(sums(
                            Map.of("default", 7L), Map.of("spout:default", 20L), Map.of(),
                            Map.of("spout:default", 20L), Map.of("spout:default", 10.0))));
                }
                ExecutorStatsSummary silent = ExecutorStatsSummary.newBuilder().setInstanceId("count-1")
                        .setComponent("count").setTaskStart(4).setTaskEnd(4).setHost("localhost").setPort(2).build();
                response.addExecutors(bolt).addExecutors(spout).addExecutors(silent);
                response.addErrors(dev.egret.proto.ComponentError.newBuilder().setComponent("count").setTaskId(2)
                        .setError("java.lang.IllegalStateException: first").setTimeSecs(1_700_000_000L)
                        .setHost("localhost").setPort(2));
                response.addErrors(dev.egret.proto.ComponentError.newBuilder().setComponent("count").setTaskId(3)
                        .setError("java.lang.IllegalStateException: second").setTimeSecs(1_700_000_005L)
                        .setHost("localhost").setPort(2));
                break;
            default:
                break;
        }
        return response.setSummary(summary).build();
    }

    @BeforeEach
    void startFakeMaster() throws IOException {
        Path dir = Files.createDirectories(local.resolve("topologies").resolve("wc"));
        Files.write(dir.resolve("topology.pb"),
                Topology.newBuilder().setName("wc").setId("wc-1-1").setStormVersion("2.8.4").build().toByteArray());
        TestTls.install(dir, "topology");
        serveAs("topology");
    }

    /** A fake master serving TLS with fixture {@code credentials}, its address in {@code tmaster.lock}. */
    private void serveAs(String credentials) throws IOException {
        SSLServerSocket server = TestTls.listen(local.resolve("scratch"), credentials);
        this.server = server;
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try (java.net.Socket socket = server.accept(); FrameChannel ch = FrameChannel.overSocket(socket, 1 << 20)) {
                    // Refuses (and the call fails) unless the client proves TOKEN.
                    hellos.add(HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_CLIENT));
                    ClientRequest request = ch.read(ClientRequest.parser());
                    requests.add(request);
                    ch.write(answer(request));
                } catch (IOException e) {
                    // closed by the test, or a client that went away
                }
            }
        }, "fake-tmaster");
        acceptor.setDaemon(true);
        acceptor.start();
        Files.writeString(local.resolve("topologies/wc/tmaster.lock"), "127.0.0.1:" + server.getLocalPort(),
                StandardCharsets.UTF_8);
    }

    /**
     * A master presenting another topology's certificate is refused in the TLS handshake:
     * the call fails naming it, and no hello reaches that master.
     */
    @Test
    void aMasterOfAnotherTopologyIsRefusedBeforeTheHello() throws Exception {
        server.close();
        serveAs("other");
        NimbusClient client = NimbusClient.Builder.withConf(Map.of("egret.local.dir", local.toString()))
                .withTimeout(2000).build();
        TException e = assertThrows(TException.class, () -> client.getClient().getTopologyInfoByName("wc"));
        assertTrue(e.getMessage().contains("TLS handshake"), e.getMessage());
        assertTrue(hellos.isEmpty(), "no hello reached the other topology's master");
        assertTrue(requests.isEmpty());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private Nimbus.Client client() {
        return NimbusClient.getConfiguredClient(Map.of("egret.local.dir", local.toString(), "nimbus.seeds", List.of("x")))
                .getClient();
    }

    @Test
    void clusterInfoListsTheTopologyWithStormsStatus() throws Exception {
        ClusterSummary cluster = client().getClusterInfo();
        assertEquals(1, cluster.get_topologies_size());
        TopologySummary t = cluster.get_topologies().get(0);
        assertEquals("wc", t.get_name());
        assertEquals("wc-1-1", t.get_id());
        assertEquals("ACTIVE", t.get_status());
        assertEquals(4, t.get_num_tasks());
        assertEquals(3, t.get_num_executors());
        assertEquals(2, t.get_num_workers());
        assertEquals(42, t.get_uptime_secs());
        assertEquals("2.8.4", t.get_storm_version());
        assertEquals(1, cluster.get_supervisors_size());
        assertEquals(2, cluster.get_supervisors().get(0).get_num_used_workers());
        assertTrue(cluster.get_nimbuses().get(0).is_isLeader());
        assertTrue(requests.get(0).hasDescribe());
        assertEquals("nimbus-client", hellos.get(0).getPeerId(), "the client proved the topology's token");
    }

    @Test
    void topologyInfoMapsWindowsStreamsAndAverages() throws Exception {
        TopologyInfo info = client().getTopologyInfo("wc-1-1");
        assertEquals("wc", info.get_name());
        // The master's errors, per component, oldest first, with Storm's ErrorInfo fields.
        assertEquals(Set.of("count"), info.get_errors().keySet());
        List<ErrorInfo> errors = info.get_errors().get("count");
        assertEquals(2, errors.size());
        assertEquals("java.lang.IllegalStateException: first", errors.get(0).get_error());
        assertEquals(1_700_000_000, errors.get(0).get_error_time_secs());
        assertEquals("localhost", errors.get(1).get_host());
        assertEquals(2, errors.get(1).get_port());
        assertEquals("java.lang.IllegalStateException: second", errors.get(1).get_error());
        assertEquals(42, info.get_uptime_secs());
        assertEquals(3, info.get_executors_size());
        ExecutorSummary spout = info.get_executors().get(1);
        assertEquals("spout", spout.get_component_id());
        assertEquals(4, spout.get_executor_info().get_task_start());
        assertEquals(5, spout.get_executor_info().get_task_end());
        assertEquals("localhost", spout.get_host());
        assertEquals(1, spout.get_port());
        assertEquals(30, spout.get_uptime_secs());
        assertEquals(1.0, spout.get_stats().get_rate());
        assertTrue(spout.get_stats().get_specific().is_set_spout());
        assertTrue(spout.get_stats().get_specific().isSet(2), "storm-perf tests the spout by field id 2");
        SpoutStats s = spout.get_stats().get_specific().get_spout();
        for (String window : List.of(":all-time", "600", "10800", "86400")) {
            assertEquals(40L, s.get_acked().get(window).get("default"));
            assertEquals(2.5, s.get_complete_ms_avg().get(window).get("default"), 1e-9);
            // A stream with emits and no acks is present with 0 (no null latency for any acked key).
            assertEquals(0L, s.get_acked().get(window).get("idle"));
            assertEquals(0.0, s.get_complete_ms_avg().get(window).get("idle"));
            assertEquals(0L, s.get_failed().get(window).get("default"));
            assertEquals(100L, spout.get_stats().get_transferred().get(window).get("default"));
        }
        ExecutorSummary bolt = info.get_executors().get(0);
        assertTrue(bolt.get_stats().get_specific().is_set_bolt());
        assertFalse(bolt.get_stats().get_specific().is_set_spout());
        BoltStats b = bolt.get_stats().get_specific().get_bolt();
        GlobalStreamId input = new GlobalStreamId("spout", "default");
        assertEquals(20L, b.get_executed().get(":all-time").get(input));
        assertEquals(0.5, b.get_execute_ms_avg().get("600").get(input), 1e-9);
        assertEquals(20L, b.get_acked().get("86400").get(input));
        // An executor that never reported has no stats, as in Storm before its first heartbeat.
        assertNull(info.get_executors().get(2).get_stats());
        assertNotNull(client().getTopologyInfoByName("wc"));
    }

    @Test
    void killWithOptsIsDetachedAndCarriesTheWait() throws Exception {
        KillOptions opts = new KillOptions();
        opts.set_wait_secs(7);
        client().killTopologyWithOpts("wc", opts);
        ClientRequest kill = requests.get(requests.size() - 1);
        assertTrue(kill.hasDetachedKill());
        assertEquals(7, kill.getDetachedKill().getWaitSecs());
        assertFalse(kill.getDetachedKill().getWaitMessageTimeout());
        assertEquals("KILLED", client().getTopologySummaryByName("wc").get_status());

        client().killTopology("wc");
        assertTrue(requests.get(requests.size() - 1).getDetachedKill().getWaitMessageTimeout());
    }

    @Test
    void deactivateAndUnknownTopologies() throws Exception {
        client().deactivate("wc");
        assertTrue(requests.get(requests.size() - 1).hasDeactivate());
        assertEquals("INACTIVE", client().getTopologySummaryByName("wc").get_status());
        assertThrows(NotAliveException.class, () -> client().activate("nope"));
        assertThrows(NotAliveException.class, () -> client().getTopologyInfo("nope-1-1"));
        assertFalse(client().isTopologyNameAllowed("wc"));
        assertTrue(client().isTopologyNameAllowed("other"));
        TException unsupported = assertThrows(TException.class, () -> client().getNimbusConf());
        assertTrue(unsupported.getMessage().contains("getNimbusConf"), unsupported.getMessage());
    }

    @Test
    void storm2ClientsLinkThroughTheIfaceBridgeAndTheBuilder() throws Exception {
        Map<String, Object> conf = Map.of("egret.local.dir", local.toString());
        java.lang.reflect.Method bridge = NimbusClient.class.getMethod("getClient");
        assertEquals(Nimbus.Client.class, bridge.getReturnType());
        boolean hasIface = false;
        for (java.lang.reflect.Method m : NimbusClient.class.getDeclaredMethods()) {
            hasIface |= m.getName().equals("getClient") && m.getReturnType() == Nimbus.Iface.class;
        }
        assertTrue(hasIface, "getClient()Lorg/apache/storm/generated/Nimbus$Iface; exists");
        try (NimbusClient client = NimbusClient.Builder.withConf(conf).withTimeout(2000).build()) {
            Nimbus.Iface iface = client.getClient();
            assertEquals("wc-1-1", iface.getTopologySummaryByName("wc").get_id());
        }
        NimbusClient.withConfiguredClient(nimbus -> assertEquals(1, nimbus.getClusterInfo().get_topologies_size()), conf);
    }

    @Test
    void aMissingMasterFailsWithinTheTimeout() throws Exception {
        Files.delete(local.resolve("topologies/wc/tmaster.lock"));
        NimbusClient client = NimbusClient.Builder.withConf(Map.of("egret.local.dir", local.toString()))
                .withTimeout(300).build();
        long started = System.nanoTime();
        TException e = assertThrows(TException.class, () -> client.getClient().getTopologyInfoByName("wc"));
        assertTrue(e.getMessage().contains("did not answer"), e.getMessage());
        assertTrue(System.nanoTime() - started < 5_000_000_000L);
    }

    /** A master that released its registration leaves tmaster.lock empty: no master to ask. */
    @Test
    void anEmptyRegistrationMeansNoMaster() throws Exception {
        Files.writeString(local.resolve("topologies/wc/tmaster.lock"), "", StandardCharsets.UTF_8);
        NimbusClient client = NimbusClient.Builder.withConf(Map.of("egret.local.dir", local.toString()))
                .withTimeout(300).build();
        TException e = assertThrows(TException.class, () -> client.getClient().getTopologyInfoByName("wc"));
        assertTrue(e.getMessage().contains("did not answer"), e.getMessage());
    }

    /** The client is a genuine Thrift client: explicit send_/recv_ halves over the in-JVM transport. */
    @Test
    void callsGoThroughThriftsEncoding() throws Exception {
        Map<String, Object> conf = Map.of("egret.local.dir", local.toString());
        try (NimbusClient nimbus = NimbusClient.getConfiguredClient(conf)) {
            assertTrue(nimbus.transport() instanceof InJvmTransport, "ThriftClient.transport(): " + nimbus.transport());
            Nimbus.Client client = new Nimbus.Client(new LocalNimbus(local, 2000).protocol());
            client.send_getClusterInfo();
            assertTrue(client.getInputProtocol().getTransport().peek(), "the reply is buffered after send_");
            ClusterSummary cluster = client.recv_getClusterInfo();
            assertEquals("wc-1-1", cluster.get_topologies().get(0).get_id());
            // Declared exceptions arrive as themselves, with their message.
            client.send_getTopologyInfo("nope-1-1");
            NotAliveException e = assertThrows(NotAliveException.class, client::recv_getTopologyInfo);
            assertTrue(e.getMessage().contains("nope-1-1"), e.getMessage());
        }
        assertEquals("wc-1-1", org.apache.storm.utils.Utils.getTopologyId("wc", client()));
        assertNull(org.apache.storm.utils.Utils.getTopologyId("other", client()));
        assertEquals("wc", org.apache.storm.utils.Utils.getTopologyInfo("wc", null, conf).get_name());
        assertNull(org.apache.storm.utils.Utils.getTopologyInfo("other", null, conf));
    }
}

package org.apache.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.client.Submitter;
import dev.egret.client.nimbus.LocalNimbus;
import dev.egret.proto.ClientRequest;
import dev.egret.proto.ClientResponse;
import dev.egret.proto.ExecutorStatsSummary;
import dev.egret.proto.PeerRole;
import dev.egret.proto.SubmitTopologyRequest;
import dev.egret.proto.SubmitTopologyResponse;
import dev.egret.proto.Topology;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.HelloServer;
import dev.egret.wire.TestTls;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLServerSocket;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.SubmitOptions;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.thrift.TException;
import org.apache.storm.topology.TopologyBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LocalCluster against a fake `egret local` (the submission socket of the contract) and a
 * fake topology master (the client port): a submission creates the topology dir the way
 * egret does, a detached kill retires it the way the scheduler does.
 */
class LocalClusterTest {
    private static final byte[] SUBMIT_TOKEN = {9, 8, 7};
    private static final byte[] TM_TOKEN = dev.egret.wire.TestTls.token("topology");

    @TempDir
    Path local;
    private Path socketDir;
    private Path socket;
    private ServerSocketChannel submitServer;
    private SSLServerSocket tmServer;
    private final List<String> submittedNames = new CopyOnWriteArrayList<>();
    private final List<ClientRequest> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger counter = new AtomicInteger();
    private final AtomicBoolean planned = new AtomicBoolean(true);

    @BeforeEach
    void start() throws IOException {
        socketDir = Files.createTempDirectory("egret-lc");
        socket = socketDir.resolve("submit.sock");
        submitServer = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        submitServer.bind(UnixDomainSocketAddress.of(socket));
        tmServer = TestTls.listen(local.resolve("scratch"), "topology");
        daemon(this::serveSubmissions);
        daemon(this::serveMaster);
    }

    @AfterEach
    void stop() throws IOException {
        submitServer.close();
        tmServer.close();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(socketDir);
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r);
        t.setDaemon(true);
        t.start();
    }

    /** Fake `egret local`: accepts each topology and creates its dir, as egret does. */
    private void serveSubmissions() {
        while (submitServer.isOpen()) {
            try (FrameChannel peer = new FrameChannel(submitServer.accept(), 64 << 20)) {
                HelloServer.accept(peer, SUBMIT_TOKEN, PeerRole.PEER_ROLE_SUBMITTER);
                Topology t = peer.read(SubmitTopologyRequest.parser()).getTopology();
                String id = t.getName() + "-" + counter.incrementAndGet() + "-100";
                Path dir = Files.createDirectories(local.resolve("topologies").resolve(t.getName()));
                Files.write(dir.resolve("topology.pb"), t.toBuilder().setId(id).build().toByteArray());
                TestTls.install(dir, "topology");
                int port = tmServer.getLocalPort();
                Files.writeString(dir.resolve("tmaster.lock"), "127.0.0.1:" + port, StandardCharsets.UTF_8);
                if (planned.get()) {
                    Files.write(dir.resolve("physical.pb"), new byte[0]);
                }
                submittedNames.add(t.getName());
                peer.write(SubmitTopologyResponse.newBuilder().setOk(true).setTopologyId(id).build());
            } catch (IOException e) {
                // closed by the test
            }
        }
    }

    /** Fake topology master shared by every topology: answers from the topology dir. */
    private void serveMaster() {
        while (!tmServer.isClosed()) {
            try (java.net.Socket socket = tmServer.accept(); FrameChannel ch = FrameChannel.overSocket(socket, 1 << 20)) {
                HelloServer.accept(ch, TM_TOKEN, PeerRole.PEER_ROLE_CLIENT);
                ClientRequest request = ch.read(ClientRequest.parser());
                requests.add(request);
                ch.write(answer(request));
            } catch (IOException e) {
                // closed by the test
            }
        }
    }

    private ClientResponse answer(ClientRequest request) throws IOException {
        // One live topology at a time in these tests: the newest dir.
        Path dir;
        try (var dirs = Files.list(local.resolve("topologies"))) {
            dir = dirs.filter(d -> Files.exists(d.resolve("topology.pb"))).findFirst().orElse(null);
        }
        if (dir == null) {
            return ClientResponse.newBuilder().setOk(false).setError("topology killed").build();
        }
        Topology t = Topology.parseFrom(Files.readAllBytes(dir.resolve("topology.pb")));
        ClientResponse.Builder response = ClientResponse.newBuilder().setOk(true).setSummary(
                dev.egret.proto.TopologySummary.newBuilder().setName(t.getName()).setId(t.getId()).setNumExecutors(1));
        if (request.hasTopologyInfo()) {
            response.addExecutors(ExecutorStatsSummary.newBuilder().setInstanceId("spout-0").setComponent("spout")
                    .setTaskStart(1).setTaskEnd(1).setIsSpout(true).setReported(true));
        }
        if (request.hasDetachedKill()) {
            // The scheduler retires the dir a moment after the kill.
            Path retired = dir;
            daemon(() -> {
                try {
                    Thread.sleep(300);
                    Path killed = Files.createDirectories(local.resolve("killed"));
                    Files.move(retired, killed.resolve(t.getId()));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
        }
        return response.build();
    }

    private LocalCluster cluster() {
        return new LocalCluster((name, conf, topology) -> Submitter.submit(name, conf, topology, socket, SUBMIT_TOKEN),
                new LocalNimbus(local, 2000));
    }

    private static StormTopology topology() {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("spout", new TestWordSpout());
        return builder.createTopology();
    }

    private boolean running(String name) {
        return Files.exists(local.resolve("topologies").resolve(name).resolve("topology.pb"));
    }

    @Test
    void submitsThroughEgretAndKillsWithoutWaitUntilGone() throws Exception {
        LocalCluster cluster = cluster();
        LocalCluster.LocalTopology t = cluster.submitTopology("wc", Map.of(), topology());
        assertInstanceOf(ILocalCluster.ILocalTopology.class, t);
        assertEquals(List.of("wc"), submittedNames);
        assertEquals("wc-1-100", cluster.getTopologySummaryByName("wc").get_id());
        assertNotNull(cluster.getTopologyConf("wc-1-100"));

        cluster.killTopology("wc");
        ClientRequest kill = requests.stream().filter(ClientRequest::hasDetachedKill).findFirst().orElseThrow();
        assertEquals(0, kill.getDetachedKill().getWaitSecs());
        assertFalse(kill.getDetachedKill().getWaitMessageTimeout());
        assertFalse(running("wc"), "killTopology returns once the topology is gone");
        assertTrue(cluster.submittedTopologies().isEmpty());
        cluster.shutdown(); // nothing left: no error, no request
        assertEquals(1, requests.stream().filter(ClientRequest::hasDetachedKill).count());
    }

    @Test
    void shutdownAndCloseKillWhatIsStillRunning() throws Exception {
        try (LocalCluster cluster = cluster()) {
            cluster.submitTopologyWithOpts("a", Map.of(), topology(), new SubmitOptions());
            assertTrue(running("a"));
        }
        assertFalse(running("a"));
        assertTrue(Files.exists(local.resolve("killed/a-1-100/topology.pb")));

        LocalCluster cluster = cluster();
        try (LocalCluster.LocalTopology t = cluster.submitTopology("b", Map.of(), topology())) {
            assertTrue(running("b"));
        }
        assertFalse(running("b"), "closing the LocalTopology kills it");
        cluster.shutdown();
        assertThrows(IllegalStateException.class, () -> cluster.submitTopology("c", Map.of(), topology()));
    }

    @Test
    void killWithOptionsCarriesTheWait() throws Exception {
        LocalCluster cluster = cluster();
        cluster.submitTopology("wc", Map.of(), topology());
        KillOptions opts = new KillOptions();
        opts.set_wait_secs(0);
        cluster.killTopologyWithOpts("wc", opts);
        assertFalse(running("wc"));
    }

    @Test
    void submissionWaitIsBounded() throws Exception {
        planned.set(false);
        LocalCluster cluster = cluster();
        cluster.setReadyTimeoutMillis(500);
        long started = System.nanoTime();
        cluster.submitTopology("slow", Map.of(), topology());
        assertTrue(System.nanoTime() - started < 5_000_000_000L);
        assertTrue(running("slow"));
        cluster.shutdown();
        assertFalse(running("slow"));
    }

    /** Storm 1.x jars call submitTopology/submitTopologyWithOpts with a void return. */
    @Test
    void storm1VoidDescriptorsExistAndDelegate() throws Exception {
        List<Method> voids = new ArrayList<>();
        for (Method m : LocalCluster.class.getDeclaredMethods()) {
            if ((m.getName().equals("submitTopology") || m.getName().equals("submitTopologyWithOpts"))
                    && m.getReturnType() == void.class) {
                voids.add(m);
            }
        }
        voids.sort(Comparator.comparing(Method::getName));
        assertEquals(2, voids.size(), "void twins of submitTopology and submitTopologyWithOpts: " + voids);
        assertEquals(List.of(String.class, Map.class, StormTopology.class),
                List.of(voids.get(0).getParameterTypes()));
        assertEquals(List.of(String.class, Map.class, StormTopology.class, SubmitOptions.class),
                List.of(voids.get(1).getParameterTypes()));
        LocalCluster cluster = cluster();
        assertEquals(null, voids.get(0).invoke(cluster, "v1", Map.of(), topology()));
        assertEquals(List.of("v1"), submittedNames);
        assertEquals(Map.of("v1", "v1-1-100"), cluster.submittedTopologies());
        cluster.shutdown();
        assertFalse(running("v1"));
    }

    @Test
    void unsupportedMembersNameThemselves() throws Exception {
        LocalCluster cluster = cluster();
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> cluster.rebalance("wc", null));
        assertTrue(e.getMessage().contains("LocalCluster.rebalance"), e.getMessage());
        e = assertThrows(UnsupportedOperationException.class, () -> cluster.advanceClusterTime(1));
        assertTrue(e.getMessage().contains("advanceClusterTime"), e.getMessage());
        e = assertThrows(UnsupportedOperationException.class, () -> new LocalCluster("zk", 2181L));
        assertTrue(e.getMessage().contains("LocalCluster(String zkHost, Long zkPort)"), e.getMessage());
        assertThrows(TException.class, () -> cluster.killTopology("nope"));
    }
}

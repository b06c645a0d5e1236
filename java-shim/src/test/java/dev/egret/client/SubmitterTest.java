package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Hello;
import dev.egret.proto.PeerRole;
import dev.egret.proto.SubmitTopologyRequest;
import dev.egret.proto.SubmitTopologyResponse;
import dev.egret.proto.Topology;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.HelloServer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.storm.generated.AlreadyAliveException;
import org.apache.storm.generated.InvalidTopologyException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SubmitterTest {
    private static final byte[] TOKEN = {1, 2, 3, 4};
    private Path dir;
    private Path socket;
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws Exception {
        dir = Files.createTempDirectory("egret-submit");
        socket = dir.resolve("submit.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(dir);
    }

    /** A fake `egret jar`: checks the hello, answers the request with {@code answer}. */
    private CompletableFuture<Topology> serve(Function<Topology, SubmitTopologyResponse> answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (FrameChannel peer = new FrameChannel(server.accept(), 64 << 20)) {
                // Refuses (and fails the test) unless the submitter proves TOKEN.
                Hello hello = HelloServer.accept(peer, TOKEN, PeerRole.PEER_ROLE_SUBMITTER);
                assertEquals("submitter", hello.getPeerId());
                Topology t = peer.read(SubmitTopologyRequest.parser()).getTopology();
                peer.write(answer.apply(t));
                return t;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void sendsTheTopologyAndReturnsItsId() throws Exception {
        CompletableFuture<Topology> got = serve(t -> SubmitTopologyResponse.newBuilder().setOk(true)
                .setTopologyId(t.getName() + "-1-100").build());
        Topology t = Topology.newBuilder().setName("wc").build();
        assertEquals("wc-1-100", Submitter.send(t, socket, TOKEN));
        assertEquals("wc", got.get().getName());
    }

    @Test
    void nameInUseIsAlreadyAlive() {
        serve(t -> SubmitTopologyResponse.newBuilder().setOk(false)
                .setError("a topology named 'wc' is already running").build());
        AlreadyAliveException e = assertThrows(AlreadyAliveException.class,
                () -> Submitter.send(Topology.newBuilder().setName("wc").build(), socket, TOKEN));
        assertTrue(e.getMessage().contains("already running"));
    }

    @Test
    void otherRefusalIsInvalidTopology() {
        serve(t -> SubmitTopologyResponse.newBuilder().setOk(false).setError("packing failed").build());
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class,
                () -> Submitter.send(Topology.newBuilder().setName("wc").build(), socket, TOKEN));
        assertEquals("packing failed", e.getMessage());
    }
}

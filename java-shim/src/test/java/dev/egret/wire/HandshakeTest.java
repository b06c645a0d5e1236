package dev.egret.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Hello;
import dev.egret.proto.HelloChallenge;
import dev.egret.proto.HelloProof;
import dev.egret.proto.HelloReply;
import dev.egret.proto.PeerRole;
import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client side of the challenge-response hello, against the test server and impostors. */
class HandshakeTest {
    private static final byte[] TOKEN = HexFormat.of().parseHex("5a17c0ffee5a17c0ffee5a17c0ffee5a");

    private Path dir;
    private ServerSocketChannel server;
    private Path socket;

    @BeforeEach
    void listen() throws Exception {
        dir = Files.createTempDirectory("egret-hello");
        socket = dir.resolve("s.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(dir);
    }

    /** Runs {@code peer} on the accepted side of the next connection, on its own thread. */
    private <T> FutureTask<T> peer(PeerTask<T> peer) {
        FutureTask<T> task = new FutureTask<>(() -> {
            try (FrameChannel ch = new FrameChannel(server.accept(), 1 << 20)) {
                return peer.run(ch);
            }
        });
        Thread t = new Thread(task, "fake-server");
        t.setDaemon(true);
        t.start();
        return task;
    }

    interface PeerTask<T> {
        T run(FrameChannel ch) throws Exception;
    }

    /** The cause of the peer's failure. */
    private static Throwable failureOf(FutureTask<?> task) {
        return assertThrows(ExecutionException.class, task::get).getCause();
    }

    /** A socket that keeps a copy of every byte written to it. */
    private static final class Recording implements ByteChannel {
        final SocketChannel inner;
        final ByteArrayOutputStream written = new ByteArrayOutputStream();

        Recording(SocketChannel inner) {
            this.inner = inner;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return inner.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            ByteBuffer copy = src.duplicate();
            int n = inner.write(src);
            byte[] bytes = new byte[n];
            copy.get(bytes);
            written.write(bytes, 0, n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return inner.isOpen();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void parsesHexTokens() {
        assertArrayEquals(new byte[] {0, (byte) 0xff, 0x10}, Handshake.decodeHexToken("00ff10"));
        assertThrows(IllegalArgumentException.class, () -> Handshake.decodeHexToken("abc"));
        assertThrows(IllegalArgumentException.class, () -> Handshake.decodeHexToken("zz"));
        assertThrows(IllegalArgumentException.class, () -> Handshake.decodeHexToken(""));
    }

    /** The same vector is asserted by egret_proto's handshake tests: the two cannot drift apart. */
    @Test
    void proofsMatchTheFixedTestVector() {
        HexFormat hex = HexFormat.of();
        byte[] token = hex.parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        Hello hello = Hello.newBuilder()
                .setProtocolVersion(2)
                .setRole(PeerRole.PEER_ROLE_INSTANCE)
                .setPeerId("word-0")
                .setClientNonce(ByteString.copyFrom(
                        hex.parseHex("202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f")))
                .build();
        byte[] serverNonce = hex.parseHex("404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f");
        assertEquals("59de5354c57200441e4e6b32ea4d3687d27a61513f8f34641dfc625370e196f8",
                hex.formatHex(Handshake.clientProof(token, hello, serverNonce)));
        assertEquals("420470aefdcb5a380c7b2a4dd1ef30116fd89b8da587ae681f2f5abda2378c1f",
                hex.formatHex(Handshake.serverProof(token, hello, serverNonce)));
        assertEquals(2, Handshake.PROTOCOL_VERSION, "the vector is for version 2");
    }

    @Test
    void bothSidesProveTheTokenAndTheConnectionOpens() throws Exception {
        FutureTask<Hello> fake = peer(ch -> {
            Hello hello = HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE);
            ch.write(HelloReply.newBuilder().setError("after the hello").build());
            return hello;
        });
        try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
            HelloReply reply = Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "word-0");
            assertTrue(reply.getAccepted());
            assertEquals("after the hello", client.read(HelloReply.parser()).getError());
        }
        Hello hello = fake.get();
        assertEquals("word-0", hello.getPeerId());
        assertEquals(Handshake.NONCE_BYTES, hello.getClientNonce().size());
    }

    @Test
    void theTokenNeverCrossesTheLinkAndEachHelloHasAFreshNonce() throws Exception {
        byte[][] nonces = new byte[2][];
        for (int i = 0; i < 2; i++) {
            FutureTask<Hello> fake = peer(ch -> HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE));
            Recording recording = new Recording(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
            try (FrameChannel client = new FrameChannel(recording, 1 << 20)) {
                Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "word-0");
            }
            nonces[i] = fake.get().getClientNonce().toByteArray();
            byte[] sent = recording.written.toByteArray();
            assertTrue(sent.length > 0);
            assertFalse(contains(sent, TOKEN), "the client's bytes hold the token");
        }
        assertFalse(Arrays.equals(nonces[0], nonces[1]), "a nonce was reused");
    }

    @Test
    void theClientsProofIsBoundToTheServersNonce() throws Exception {
        FutureTask<Hello> first = peer(ch -> HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE));
        Recording recording = new Recording(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
        try (FrameChannel client = new FrameChannel(recording, 1 << 20)) {
            Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "word-0");
        }
        first.get();
        // The recorded hello and proof, replayed on a new connection, whose server nonce differs.
        FutureTask<Hello> second = peer(ch -> HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE));
        try (SocketChannel replay = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                FrameChannel replayed = new FrameChannel(replay, 1 << 20)) {
            ByteBuffer bytes = ByteBuffer.wrap(recording.written.toByteArray());
            while (bytes.hasRemaining()) {
                replay.write(bytes);
            }
            HelloChallenge challenge = replayed.read(HelloChallenge.parser(), FrameChannel.HELLO_MAX_BYTES);
            assertEquals(Handshake.NONCE_BYTES, challenge.getServerNonce().size());
            HelloReply reply = replayed.read(HelloReply.parser(), FrameChannel.HELLO_MAX_BYTES);
            assertFalse(reply.getAccepted());
            assertTrue(reply.getError().contains("token"), reply.getError());
        }
        assertTrue(failureOf(second) instanceof HandshakeException);
    }

    @Test
    void aWrongTokenIsRefusedOnBothSides() throws Exception {
        FutureTask<Hello> fake = peer(ch -> HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE));
        byte[] wrong = TOKEN.clone();
        wrong[0] ^= 1;
        try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> Handshake.connect(client, wrong, PeerRole.PEER_ROLE_INSTANCE, "i-0"));
            assertEquals("peer refused the hello: peer's proof of the topology's token is wrong (a wrong token)",
                    e.getMessage());
        }
        assertTrue(failureOf(fake) instanceof HandshakeException);
    }

    /** A server that does not hold the token, accepting with {@code serverProof}. */
    private FutureTask<Void> impostor(byte[] serverProof) {
        return peer(ch -> {
            ch.read(Hello.parser(), FrameChannel.HELLO_MAX_BYTES);
            byte[] nonce = new byte[Handshake.NONCE_BYTES];
            ch.write(HelloChallenge.newBuilder().setServerNonce(ByteString.copyFrom(nonce)).build());
            HelloProof proof = ch.read(HelloProof.parser(), FrameChannel.HELLO_MAX_BYTES);
            byte[] answer = serverProof == null ? proof.getClientProof().toByteArray() : serverProof;
            ch.write(HelloReply.newBuilder().setAccepted(true).setServerProof(ByteString.copyFrom(answer)).build());
            return null;
        });
    }

    @Test
    void aServerThatCannotProveTheTokenIsRefused() throws Exception {
        // No proof, a wrong one, and the client's own proof echoed back (the tags differ).
        for (byte[] serverProof : new byte[][] {new byte[0], new byte[32], null}) {
            FutureTask<Void> fake = impostor(serverProof);
            try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
                HandshakeException e = assertThrows(HandshakeException.class,
                        () -> Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "i-0"));
                assertEquals("peer accepted the hello without proving that it holds the topology's token",
                        e.getMessage());
            }
            fake.get();
        }
    }

    @Test
    void aRefusalInPlaceOfTheChallengeCarriesItsReason() throws Exception {
        FutureTask<Void> fake = peer(ch -> {
            ch.read(Hello.parser(), FrameChannel.HELLO_MAX_BYTES);
            ch.write(HelloReply.newBuilder().setAccepted(false)
                    .setError("peer speaks protocol version 2, this build speaks 3").build());
            return null;
        });
        try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "i-0"));
            assertEquals("peer refused the hello: peer speaks protocol version 2, this build speaks 3", e.getMessage());
        }
        fake.get();
    }

    @Test
    void aShortServerNonceIsRefused() throws Exception {
        FutureTask<Void> fake = peer(ch -> {
            ch.read(Hello.parser(), FrameChannel.HELLO_MAX_BYTES);
            ch.write(HelloChallenge.newBuilder().setServerNonce(ByteString.copyFrom(new byte[8])).build());
            return null;
        });
        try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "i-0"));
            assertEquals("peer's server nonce is 8 bytes, expected 32", e.getMessage());
        }
        fake.get();
    }

    @Test
    void aHelloFrameOver4KibIsRefused() throws Exception {
        for (boolean inTheReply : new boolean[] {false, true}) {
            FutureTask<Void> fake = peer(ch -> {
                ch.read(Hello.parser(), FrameChannel.HELLO_MAX_BYTES);
                if (inTheReply) {
                    ch.write(HelloChallenge.newBuilder()
                            .setServerNonce(ByteString.copyFrom(new byte[Handshake.NONCE_BYTES])).build());
                    ch.read(HelloProof.parser(), FrameChannel.HELLO_MAX_BYTES);
                }
                // Within the connection's cap (1 MiB), over the hello's.
                ch.write(HelloReply.newBuilder().setError("x".repeat(FrameChannel.HELLO_MAX_BYTES)).build());
                return null;
            });
            try (FrameChannel client = FrameChannel.connectUnix(socket, 1 << 20)) {
                HandshakeException e = assertThrows(HandshakeException.class,
                        () -> Handshake.connect(client, TOKEN, PeerRole.PEER_ROLE_INSTANCE, "i-0"));
                assertEquals("peer answered the hello with an oversized frame", e.getMessage(), "reply: " + inTheReply);
                assertTrue(e.getCause() instanceof FrameTooLargeException);
            }
            fake.get();
        }
    }

    @Test
    void anEmptyTokenIsRefusedBeforeAnythingIsSent() throws Exception {
        try (SocketChannel raw = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                SocketChannel accepted = server.accept();
                FrameChannel client = new FrameChannel(raw, 1 << 20)) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> Handshake.connect(client, new byte[0], PeerRole.PEER_ROLE_INSTANCE, "i-0"));
            assertEquals("the token is empty", e.getMessage());
            raw.shutdownOutput();
            assertEquals(-1, accepted.read(ByteBuffer.allocate(1)), "nothing was sent");
        }
    }
}

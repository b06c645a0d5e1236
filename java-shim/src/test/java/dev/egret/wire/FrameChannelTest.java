package dev.egret.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.egret.proto.Hello;
import java.io.EOFException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FrameChannelTest {
    private Path dir;
    private ServerSocketChannel server;
    private Path socket;

    @BeforeEach
    void listen() throws Exception {
        dir = Files.createTempDirectory("egret-wire");
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

    @Test
    void roundTripsMessagesAndRawFrames() throws Exception {
        try (SocketChannel clientSocket = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                SocketChannel peerSocket = server.accept();
                FrameChannel client = new FrameChannel(clientSocket, 64 << 20);
                FrameChannel peer = new FrameChannel(peerSocket, 1 << 20)) {
            Hello hello = Hello.newBuilder().setProtocolVersion(Handshake.PROTOCOL_VERSION).setPeerId("x").build();
            client.write(hello);
            assertEquals(hello, peer.read(Hello.parser()));
            RawFrames.write(peerSocket, new byte[0]);
            assertArrayEquals(new byte[0], client.readFrame());
            byte[] big = new byte[100_000];
            big[99_999] = 7;
            RawFrames.write(clientSocket, big);
            assertArrayEquals(big, peer.readFrame());
        }
    }

    @Test
    void framesAreReadIntoAReusedBufferThatGrowsToTheLargest() throws Exception {
        try (SocketChannel clientSocket = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                SocketChannel peerSocket = server.accept();
                FrameChannel peer = new FrameChannel(peerSocket, 1 << 20)) {
            FrameBuffer buffer = new FrameBuffer(16);
            int[] sizes = {10, 0, 5000, 3, 70_000, 12};
            for (int size : sizes) {
                byte[] body = new byte[size];
                for (int i = 0; i < size; i++) {
                    body[i] = (byte) (i * 31 + size);
                }
                RawFrames.write(clientSocket, body);
                peer.readFrame(buffer);
                assertEquals(size, buffer.length());
                assertArrayEquals(body, java.util.Arrays.copyOf(buffer.array(), buffer.length()));
            }
            assertEquals(70_000, buffer.array().length, "grown once to the largest frame, then reused");
            // Only a length over the cap: refused after the header, before the body is read.
            clientSocket.write(ByteBuffer.allocate(4).putInt(2 << 20).flip());
            assertThrows(FrameTooLargeException.class, () -> peer.readFrame(buffer));
        }
    }

    @Test
    void aPoolKeepsAFewBuffersAndLetsHugeOnesGo() {
        FrameBuffer.Pool pool = new FrameBuffer.Pool(2, 1000, 64);
        FrameBuffer a = pool.take();
        FrameBuffer b = pool.take();
        FrameBuffer c = pool.take();
        assertEquals(64, a.array().length);
        a.arrayFor(900);
        b.arrayFor(1001);
        a.release();
        b.release();
        c.release();
        assertEquals(2, pool.kept(), "a, then c; b's array is over the bound");
        FrameBuffer again = pool.take();
        org.junit.jupiter.api.Assertions.assertSame(c, again, "the last given back comes first");
        assertEquals(0, again.length());
        org.junit.jupiter.api.Assertions.assertSame(a, pool.take());
        assertEquals(0, pool.kept());
        // A buffer of no pool is simply dropped.
        new FrameBuffer(8).release();
        assertEquals(0, pool.kept());
    }

    @Test
    void anEncodedBodyGoesOutWithItsLengthInTheRoomBeforeIt() throws Exception {
        try (SocketChannel clientSocket = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                SocketChannel peerSocket = server.accept();
                FrameChannel client = new FrameChannel(clientSocket, 1024);
                FrameChannel peer = new FrameChannel(peerSocket, 1024)) {
            Hello hello = Hello.newBuilder().setProtocolVersion(Handshake.PROTOCOL_VERSION).setPeerId("enc").build();
            byte[] body = hello.toByteArray();
            byte[] frame = new byte[7 + body.length + 3];
            java.util.Arrays.fill(frame, (byte) 0x5a);
            System.arraycopy(body, 0, frame, 7, body.length);
            client.writeEncoded(frame, 7, body.length);
            assertEquals(hello, peer.read(Hello.parser()));
            // No room for the length: refused, nothing written.
            assertThrows(IllegalArgumentException.class, () -> client.writeEncoded(body, 0, body.length));
            // Over the cap: refused before writing.
            byte[] huge = new byte[4 + 2000];
            assertThrows(FrameTooLargeException.class, () -> client.writeEncoded(huge, 4, 2000));
            client.write(hello);
            assertEquals(hello, peer.read(Hello.parser()), "the stream is still aligned on frames");
        }
    }

    @Test
    void oversizedLengthIsRefusedBeforeReadingTheBody() throws Exception {
        try (SocketChannel raw = SocketChannel.open(UnixDomainSocketAddress.of(socket));
                FrameChannel peer = new FrameChannel(server.accept(), 1024)) {
            ByteBuffer header = ByteBuffer.allocate(4).putInt(0xFFFF_FFF0);
            header.flip();
            raw.write(header);
            FrameTooLargeException e = assertThrows(FrameTooLargeException.class, peer::readFrame);
            assertEquals(0xFFFF_FFF0L, e.length());
            assertEquals(1024, e.limit());
        }
    }

    @Test
    void closedPeerIsEof() throws Exception {
        try (FrameChannel peer = new FrameChannel(acceptAfterClose(), 1024)) {
            assertThrows(EOFException.class, peer::readFrame);
        }
    }

    private SocketChannel acceptAfterClose() throws Exception {
        SocketChannel raw = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        SocketChannel accepted = server.accept();
        raw.close();
        return accepted;
    }
}

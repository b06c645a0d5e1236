package dev.egret.wire;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A blocking, framed duplex channel: each frame is a 4-byte big-endian length followed by
 * one protobuf message.
 *
 * <p>Thread-safety: one thread may read while another writes; concurrent readers are
 * serialized on a read lock and concurrent writers on a write lock, so frames never
 * interleave. Writing reuses one growable buffer (no per-frame allocation once warm);
 * reading allocates exactly the announced length after checking it against the cap, or
 * reads into a reusable {@link FrameBuffer}.
 */
public class FrameChannel implements Closeable {
    /** Cap of a connection's first frame (the hello and its reply), as in the Rust side. */
    public static final int HELLO_MAX_BYTES = 4 * 1024;
    /** Size of the length prefix. */
    public static final int LENGTH_BYTES = 4;

    private final ByteChannel channel;
    private final Object readLock = new Object();
    private final Object writeLock = new Object();
    private final ByteBuffer header = ByteBuffer.allocate(LENGTH_BYTES);
    private volatile int maxFrameBytes;
    private byte[] writeBuffer = new byte[8 * 1024];

    /**
     * Wraps an already connected blocking channel.
     *
     * @param maxFrameBytes cap for frames read and written after the handshake
     */
    public FrameChannel(ByteChannel channel, int maxFrameBytes) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        this.channel = channel;
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * For a subclass that carries whole frames itself (the JNI bridge's channel): it
     * overrides {@link #readFrame(FrameBuffer, int)} (which {@link #readFrame(int)} reads through),
     * {@link #write(MessageLite, int)},
     * {@link #writeEncoded(byte[], int, int)}, {@link #isOpen()}
     * and {@link #close()}.
     */
    protected FrameChannel(int maxFrameBytes) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        this.channel = null;
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * Connects to a Unix domain socket. There is no default cap: an instance's is the resolved
     * {@code egret.frame.max.bytes} it is given ({@code EGRET_FRAME_MAX_BYTES}, then the
     * assignment's settings).
     */
    public static FrameChannel connectUnix(Path socketPath, int maxFrameBytes) throws IOException {
        SocketChannel sc = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            sc.connect(UnixDomainSocketAddress.of(socketPath));
        } catch (IOException | RuntimeException e) {
            sc.close();
            throw e;
        }
        return new FrameChannel(sc, maxFrameBytes);
    }

    /**
     * Connects over TCP (a topology master's client port). Reads time out after
     * {@code timeoutMillis} with a {@link java.net.SocketTimeoutException}, so a silent peer
     * cannot block the caller forever; 0 means no timeout.
     */
    public static FrameChannel connectTcp(java.net.InetSocketAddress address, int maxFrameBytes, int timeoutMillis)
            throws IOException {
        java.net.Socket socket = new java.net.Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            return new FrameChannel(new SocketByteChannel(socket), maxFrameBytes);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Wraps an already connected blocking socket (a TLS one included, see {@link TopologyTls});
     * its reads honour the socket's {@code SO_TIMEOUT}.
     */
    public static FrameChannel overSocket(java.net.Socket socket, int maxFrameBytes) throws IOException {
        return new FrameChannel(new SocketByteChannel(socket), maxFrameBytes);
    }

    /**
     * A blocking socket as a {@link ByteChannel}: its streams honour {@code SO_TIMEOUT}, which
     * a {@link SocketChannel}'s reads do not.
     */
    private static final class SocketByteChannel implements ByteChannel {
        private final java.net.Socket socket;
        private final java.nio.channels.ReadableByteChannel in;
        private final java.nio.channels.WritableByteChannel out;

        SocketByteChannel(java.net.Socket socket) throws IOException {
            this.socket = socket;
            this.in = java.nio.channels.Channels.newChannel(socket.getInputStream());
            this.out = java.nio.channels.Channels.newChannel(socket.getOutputStream());
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return in.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return out.write(src);
        }

        @Override
        public boolean isOpen() {
            return !socket.isClosed();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    public void setMaxFrameBytes(int maxFrameBytes) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Reads one frame's body with the connection's cap. */
    public byte[] readFrame() throws IOException {
        return readFrame(maxFrameBytes);
    }

    /**
     * Reads one frame's body.
     *
     * @throws EOFException if the peer closed the connection (cleanly between frames or
     *     in the middle of one)
     * @throws FrameTooLargeException if the announced length exceeds {@code limit}
     */
    public byte[] readFrame(int limit) throws IOException {
        // A buffer with no array yet: it gets one of exactly the frame's length.
        FrameBuffer body = new FrameBuffer(0);
        readFrame(body, limit);
        return body.array();
    }

    /**
     * Reads one frame's body into {@code into} (its array grows when the frame is longer),
     * with the connection's cap.
     */
    public void readFrame(FrameBuffer into) throws IOException {
        readFrame(into, maxFrameBytes);
    }

    /**
     * Reads one frame's body into {@code into}, as {@link #readFrame(int)} reads it into a
     * new array.
     */
    public void readFrame(FrameBuffer into, int limit) throws IOException {
        synchronized (readLock) {
            header.clear();
            if (!readFully(header, true)) {
                throw new EOFException("connection closed");
            }
            header.flip();
            long length = Integer.toUnsignedLong(header.getInt());
            if (length > limit) {
                throw new FrameTooLargeException(length, limit);
            }
            byte[] body = into.arrayFor((int) length);
            if (length > 0) {
                readFully(ByteBuffer.wrap(body, 0, (int) length), false);
            }
        }
    }

    /** Reads one frame and parses it, with the connection's cap. */
    public <T> T read(Parser<T> parser) throws IOException {
        return read(parser, maxFrameBytes);
    }

    /** Reads one frame and parses it. */
    public <T> T read(Parser<T> parser, int limit) throws IOException {
        byte[] body = readFrame(limit);
        try {
            return parser.parseFrom(body);
        } catch (InvalidProtocolBufferException e) {
            throw new IOException("malformed frame of " + body.length + " bytes: " + e.getMessage(), e);
        }
    }

    /** Writes one message as a frame, with the connection's cap. */
    public void write(MessageLite message) throws IOException {
        write(message, maxFrameBytes);
    }

    /**
     * Writes one message as a frame.
     *
     * @throws FrameTooLargeException if the message is larger than {@code limit} (nothing is written)
     */
    public void write(MessageLite message, int limit) throws IOException {
        int size = message.getSerializedSize();
        if (size > limit) {
            throw new FrameTooLargeException(size, limit);
        }
        synchronized (writeLock) {
            int total = LENGTH_BYTES + size;
            if (writeBuffer.length < total) {
                writeBuffer = new byte[Math.max(total, writeBuffer.length * 2)];
            }
            byte[] buf = writeBuffer;
            buf[0] = (byte) (size >>> 24);
            buf[1] = (byte) (size >>> 16);
            buf[2] = (byte) (size >>> 8);
            buf[3] = (byte) size;
            CodedOutputStream out = CodedOutputStream.newInstance(buf, LENGTH_BYTES, size);
            message.writeTo(out);
            out.checkNoSpaceLeft();
            writeAll(ByteBuffer.wrap(buf, 0, total));
            // Do not keep a huge buffer alive after one big frame.
            if (buf.length > 4 * 1024 * 1024 && total < buf.length / 4) {
                writeBuffer = new byte[8 * 1024];
            }
        }
    }

    /**
     * Writes one frame whose body is already encoded: {@code frame[bodyOffset, bodyOffset +
     * bodyLength)}, with {@link #LENGTH_BYTES} bytes of room before it in the same array,
     * which this fills with the length, so the frame goes out in one write without a copy.
     * The caller gives up the array's room and body to this call.
     *
     * @throws FrameTooLargeException if the body is larger than the connection's cap (nothing is written)
     */
    public void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
        if (bodyOffset < LENGTH_BYTES || bodyLength < 0 || bodyOffset + bodyLength > frame.length) {
            throw new IllegalArgumentException("an encoded frame needs " + LENGTH_BYTES
                    + " bytes of room before its body: body at " + bodyOffset + ", " + bodyLength
                    + " bytes, array of " + frame.length);
        }
        if (bodyLength > maxFrameBytes) {
            throw new FrameTooLargeException(bodyLength, maxFrameBytes);
        }
        synchronized (writeLock) {
            int at = bodyOffset - LENGTH_BYTES;
            frame[at] = (byte) (bodyLength >>> 24);
            frame[at + 1] = (byte) (bodyLength >>> 16);
            frame[at + 2] = (byte) (bodyLength >>> 8);
            frame[at + 3] = (byte) bodyLength;
            writeAll(ByteBuffer.wrap(frame, at, LENGTH_BYTES + bodyLength));
        }
    }

    /**
     * {@link #writeEncoded} if it can be done now without waiting, else nothing: true when the
     * frame was written. A byte stream cannot tell beforehand whether a write would wait, so
     * this one always answers false and the caller writes the frame the blocking way (the JNI
     * bridge's channel can: {@code JniFrameChannel}).
     */
    public boolean tryWriteEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
        return false;
    }

    private void writeAll(ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    /** Returns false only if the stream ended before any byte and {@code eofOk}. */
    private boolean readFully(ByteBuffer buf, boolean eofOk) throws IOException {
        boolean first = true;
        while (buf.hasRemaining()) {
            int n = channel.read(buf);
            if (n < 0) {
                if (first && eofOk) {
                    return false;
                }
                throw new EOFException("connection closed in the middle of a frame");
            }
            if (n > 0) {
                first = false;
            }
        }
        return true;
    }

    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

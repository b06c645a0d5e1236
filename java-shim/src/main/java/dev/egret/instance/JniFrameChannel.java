package dev.egret.instance;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import dev.egret.wire.FrameBuffer;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.FrameTooLargeException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JNI bridge's frame channel: an executor's duplex stream of frames to the stream
 * manager of its own process, each frame one native call with a direct {@link ByteBuffer}
 * (natives registered by the process, {@code native/src/frames.rs}). Frames are the same
 * protobuf messages as on the instance socket, without the length prefix: a call carries
 * exactly one.
 *
 * <p>Buffers: one direct buffer per direction, owned by this channel. A write serializes
 * the message into the write buffer and hands it to {@code send0}, which copies it out
 * before returning (blocking while the stream manager's bounded queue is full); a read hands
 * the read buffer to {@code receive0}, which copies the next frame in (blocking until one
 * comes). Rust keeps no pointer to a buffer after the call. The read and write locks give
 * each buffer to one call at a time; a buffer grows to the largest frame and shrinks back
 * after an unusually large one.
 */
public final class JniFrameChannel extends FrameChannel implements DirectInbound.Port {
    private static final int FIRST_BUFFER_BYTES = 64 * 1024;
    private static final int KEEP_BUFFER_BYTES = 4 * 1024 * 1024;
    /** {@code receiveWithin0}'s answer when no frame came. */
    private static final long NO_FRAME = -2;

    private final long handle;
    private final Object readLock = new Object();
    private final Object writeLock = new Object();
    private ByteBuffer readBuffer = ByteBuffer.allocateDirect(FIRST_BUFFER_BYTES);
    private ByteBuffer writeBuffer = ByteBuffer.allocateDirect(FIRST_BUFFER_BYTES);
    private volatile boolean closed;

    private JniFrameChannel(long handle, int maxFrameBytes) {
        super(maxFrameBytes);
        this.handle = handle;
    }

    /**
     * A new connection of executor {@code instanceId} to the stream manager of this process;
     * {@code restarts}: how often the executor was restarted in this JVM before the run that
     * opens it (the stream manager publishes it as {@code egret.restarts}).
     */
    public static JniFrameChannel open(String instanceId, int maxFrameBytes, int restarts) throws IOException {
        long handle;
        try {
            handle = open0(instanceId, restarts);
        } catch (RuntimeException e) {
            throw new IOException("the JNI bridge refused a channel for " + instanceId + ": " + e.getMessage(), e);
        }
        return new JniFrameChannel(handle, maxFrameBytes);
    }

    /**
     * Under the read lock: copies the frame of {@code length} bytes that a receive announced
     * into {@code into}; one larger than {@link #readBuffer} waits on the Rust side and is
     * taken again, at once, into a buffer that holds it.
     */
    private void take(FrameBuffer into, long length, int limit) throws IOException {
        if (length > limit) {
            throw new FrameTooLargeException(length, limit);
        }
        if (length > readBuffer.capacity()) {
            readBuffer = ByteBuffer.allocateDirect((int) length);
            length = receiveWithin(readBuffer, 0);
        }
        int n = (int) length;
        readBuffer.get(0, into.arrayFor(n), 0, n);
        shrinkAfterLargeFrame(n);
    }

    /** Under the read lock: EOF once this side closed the channel. */
    private void checkOpen() throws EOFException {
        if (closed) {
            throw new EOFException("connection closed");
        }
    }

    /** Under the read lock: a buffer grown for an unusually large frame goes back to its first size. */
    private void shrinkAfterLargeFrame(int length) {
        if (readBuffer.capacity() > KEEP_BUFFER_BYTES && length < readBuffer.capacity() / 4) {
            readBuffer = ByteBuffer.allocateDirect(FIRST_BUFFER_BYTES);
        }
    }

    @Override
    public void readFrame(FrameBuffer into, int limit) throws IOException {
        synchronized (readLock) {
            checkOpen();
            take(into, receive(readBuffer), limit);
        }
    }

    /**
     * The next frame into {@code into}, waiting at most {@code timeoutNanos} (0: only a frame
     * already there); false when none came in time or {@link #wake} ended the wait. The
     * executor reads its own frames this way (no reader thread between it and the stream
     * manager).
     */
    @Override
    public boolean readFrameWithin(FrameBuffer into, long timeoutNanos) throws IOException {
        synchronized (readLock) {
            checkOpen();
            long length = receiveWithin(readBuffer, Math.max(0, timeoutNanos));
            if (length == NO_FRAME) {
                return false;
            }
            take(into, length, maxFrameBytes());
            return true;
        }
    }

    /** Ends a {@link #readFrameWithin} wait now, or the next one if none waits. */
    @Override
    public void wake() {
        if (closed) {
            return;
        }
        try {
            wake0(handle);
        } catch (RuntimeException ignored) {
            // The port is gone: nobody waits on it.
        }
    }

    private long receive(ByteBuffer buffer) throws IOException {
        long length;
        try {
            length = receive0(handle, buffer);
        } catch (RuntimeException e) {
            throw new IOException("the JNI bridge failed to read a frame: " + e.getMessage(), e);
        }
        if (length < 0) {
            throw new EOFException("the stream manager closed the connection");
        }
        return length;
    }

    /** {@code receiveWithin0}: a length, {@link #NO_FRAME}, or EOF when the port is closed. */
    private long receiveWithin(ByteBuffer buffer, long timeoutNanos) throws IOException {
        long length;
        try {
            length = receiveWithin0(handle, buffer, timeoutNanos);
        } catch (RuntimeException e) {
            throw new IOException("the JNI bridge failed to read a frame: " + e.getMessage(), e);
        }
        if (length == NO_FRAME) {
            return NO_FRAME;
        }
        if (length < 0) {
            throw new EOFException("the stream manager closed the connection");
        }
        return length;
    }

    @Override
    public void write(MessageLite message, int limit) throws IOException {
        int size = message.getSerializedSize();
        if (size > limit) {
            throw new FrameTooLargeException(size, limit);
        }
        synchronized (writeLock) {
            ByteBuffer buffer = writeBufferFor(size, limit);
            CodedOutputStream out = CodedOutputStream.newInstance(buffer);
            message.writeTo(out);
            out.flush();
            send(buffer, size, false);
        }
    }

    /**
     * An encoded batch (the instance's outgoing frames): copied once into the direct write
     * buffer, the one copy a frame makes on its way to Rust; the length prefix's room before
     * the body is not used.
     */
    @Override
    public void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
        writeEncoded(frame, bodyOffset, bodyLength, false);
    }

    /**
     * {@link #writeEncoded} without waiting: the frame is queued toward the stream manager only
     * if its queue has room now (false, nothing sent, when it is full: backpressure). A write
     * in progress on another thread is waited for (the write lock), so a caller that must
     * never wait calls this only when no other thread writes to the channel.
     */
    @Override
    public boolean tryWriteEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
        return writeEncoded(frame, bodyOffset, bodyLength, true);
    }

    private boolean writeEncoded(byte[] frame, int bodyOffset, int bodyLength, boolean noWait) throws IOException {
        int limit = maxFrameBytes();
        if (bodyLength > limit) {
            throw new FrameTooLargeException(bodyLength, limit);
        }
        synchronized (writeLock) {
            ByteBuffer buffer = writeBufferFor(bodyLength, limit);
            buffer.put(frame, bodyOffset, bodyLength);
            return send(buffer, bodyLength, noWait);
        }
    }

    /** Under the write lock: the cleared write buffer, grown to hold {@code size} bytes. */
    private ByteBuffer writeBufferFor(int size, int limit) throws IOException {
        if (closed) {
            throw new IOException("connection closed");
        }
        if (writeBuffer.capacity() < size) {
            writeBuffer = ByteBuffer.allocateDirect(Math.max(size, Math.min(limit, writeBuffer.capacity() * 2)));
        }
        writeBuffer.clear();
        return writeBuffer;
    }

    /**
     * Under the write lock: hands the buffer's first {@code size} bytes to the stream manager,
     * waiting while its queue is full, or with {@code noWait} only if it has room now; true
     * when sent.
     */
    private boolean send(ByteBuffer buffer, int size, boolean noWait) throws IOException {
        int status;
        try {
            status = noWait ? trySend0(handle, buffer, size) : send0(handle, buffer, size);
        } catch (RuntimeException e) {
            throw new IOException("the JNI bridge failed to send a frame: " + e.getMessage(), e);
        }
        if (status < 0) {
            throw new EOFException("the stream manager closed the connection");
        }
        if (buffer.capacity() > KEEP_BUFFER_BYTES && size < buffer.capacity() / 4) {
            writeBuffer = ByteBuffer.allocateDirect(FIRST_BUFFER_BYTES);
        }
        return !noWait || status > 0;
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /** Ends both directions; a read or write blocked in the bridge returns at once. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                close0(handle);
            } catch (RuntimeException ignored) {
                // Already gone on the Rust side.
            }
        }
    }

    private static native long open0(String instanceId, int restarts);

    /** 0: queued (after waiting for room); -1: the port is closed. */
    private static native int send0(long handle, ByteBuffer buffer, int length);

    /** 1: queued; 0: the queue is full, nothing queued; -1: the port is closed. */
    private static native int trySend0(long handle, ByteBuffer buffer, int length);

    private static native long receive0(long handle, ByteBuffer buffer);

    /** A frame's length, -1 when the port is closed, {@link #NO_FRAME} when none came within the timeout or woken. */
    private static native long receiveWithin0(long handle, ByteBuffer buffer, long timeoutNanos);

    private static native void wake0(long handle);

    private static native void close0(long handle);
}

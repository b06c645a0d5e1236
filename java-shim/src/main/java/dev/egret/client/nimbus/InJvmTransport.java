package dev.egret.client.nimbus;

import java.io.ByteArrayOutputStream;
import org.apache.storm.thrift.TConfiguration;
import org.apache.storm.thrift.TException;
import org.apache.storm.thrift.TProcessor;
import org.apache.storm.thrift.protocol.TBinaryProtocol;
import org.apache.storm.thrift.transport.TMemoryBuffer;
import org.apache.storm.thrift.transport.TMemoryInputTransport;
import org.apache.storm.thrift.transport.TTransport;
import org.apache.storm.thrift.transport.TTransportException;

/**
 * A Thrift transport whose far end is a {@link TProcessor} in the same JVM: a client's request
 * is buffered until {@link #flush()}, which runs the processor over the encoded request and
 * keeps its encoded reply for the client's {@link #read}. Calls therefore go through Thrift's
 * binary encoding exactly as over a socket to a Thrift server (message header, sequence id,
 * args and result structs, application exceptions), with no socket.
 *
 * <p>Invariant: one request is in flight at a time (a Thrift client sends a request, flushes,
 * then reads the whole reply). Like a socket transport, an instance must not be used by
 * threads concurrently; Egret's {@code Nimbus.Client} synchronizes each whole call for this
 * (Storm's is not thread-safe), explicit {@code send_}/{@code recv_} pairs are the caller's to
 * serialize.
 */
public final class InJvmTransport extends TTransport {
    private final TProcessor processor;
    private final TConfiguration configuration = new TConfiguration();
    private final ByteArrayOutputStream request = new ByteArrayOutputStream();
    private byte[] reply = new byte[0];
    private int replyPos;
    private boolean open = true;

    public InJvmTransport(TProcessor processor) {
        this.processor = processor;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void open() {
        open = true;
    }

    @Override
    public void close() {
        open = false;
        request.reset();
        reply = new byte[0];
        replyPos = 0;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
        int available = reply.length - replyPos;
        if (available <= 0) {
            throw new TTransportException(TTransportException.END_OF_FILE, "no reply to read: nothing was sent");
        }
        int n = Math.min(len, available);
        System.arraycopy(reply, replyPos, buf, off, n);
        replyPos += n;
        return n;
    }

    @Override
    public void write(byte[] buf, int off, int len) throws TTransportException {
        if (!open) {
            throw new TTransportException(TTransportException.NOT_OPEN, "transport is closed");
        }
        request.write(buf, off, len);
    }

    /** Delivers the buffered request to the processor and keeps its reply for reading. */
    @Override
    public void flush() throws TTransportException {
        if (request.size() == 0) {
            return;
        }
        byte[] bytes = request.toByteArray();
        request.reset();
        TMemoryBuffer out = new TMemoryBuffer(256);
        try {
            processor.process(new TBinaryProtocol(new TMemoryInputTransport(bytes)), new TBinaryProtocol(out));
        } catch (TTransportException e) {
            throw e;
        } catch (TException e) {
            throw new TTransportException(TTransportException.UNKNOWN, "the in-JVM server failed: " + e.getMessage(), e);
        }
        reply = java.util.Arrays.copyOf(out.getArray(), out.length());
        replyPos = 0;
    }

    @Override
    public TConfiguration getConfiguration() {
        return configuration;
    }

    @Override
    public void updateKnownMessageSize(long size) {
        // The reply is already in memory: there is no frame size to enforce.
    }

    @Override
    public void checkReadBytesAvailable(long numBytes) throws TTransportException {
        if (numBytes > reply.length - replyPos) {
            throw new TTransportException(TTransportException.END_OF_FILE,
                    "the reply has " + (reply.length - replyPos) + " bytes left, " + numBytes + " needed");
        }
    }
}

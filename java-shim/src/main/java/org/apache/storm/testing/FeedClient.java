package org.apache.storm.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FeederSpout} task's side of its {@link FeedServer}: a daemon thread connects (and
 * reconnects, every second, while the task is open) and moves fed tuples into a bounded
 * inbox that {@code nextTuple} polls; when the inbox is full the thread stops reading, and
 * the tuples wait in the feeding JVM.
 */
final class FeedClient {
    private static final Logger LOG = LoggerFactory.getLogger(FeedClient.class);
    private static final int INBOX = 1024;
    private static final long RETRY_MILLIS = 1000;

    private final FeedServer.Address server;
    private final int feedId;
    private final ArrayBlockingQueue<List<Object>> inbox = new ArrayBlockingQueue<>(INBOX);
    private final Object writeLock = new Object();
    private volatile boolean closed;
    private volatile Socket socket;
    private DataOutputStream out;

    private FeedClient(FeedServer.Address server, int feedId) {
        this.server = server;
        this.feedId = feedId;
    }

    static FeedClient start(FeedServer.Address server, int feedId) {
        FeedClient c = new FeedClient(server, feedId);
        Thread t = new Thread(c::run, "feeder-spout-" + feedId);
        t.setDaemon(true);
        t.start();
        return c;
    }

    List<Object> poll() {
        return inbox.poll();
    }

    /** Sends an ack or fail to the feeding JVM; dropped (logged) when not connected. */
    void report(boolean acked, Object msgId) {
        synchronized (writeLock) {
            if (out == null) {
                LOG.debug("FeederSpout {}: not connected, dropped the {} of {}", feedId, acked ? "ack" : "fail", msgId);
                return;
            }
            try {
                FeedServer.writeMessage(out, new Object[] {acked, msgId});
            } catch (IOException e) {
                LOG.debug("FeederSpout {}: could not report {}: {}", feedId, msgId, e.getMessage());
            }
        }
    }

    void close() {
        closed = true;
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void run() {
        boolean warned = false;
        while (!closed) {
            try (Socket s = new Socket()) {
                socket = s;
                s.connect(new InetSocketAddress(server.host(), server.port()), 5_000);
                s.setTcpNoDelay(true);
                DataOutputStream o = new DataOutputStream(s.getOutputStream());
                o.write(server.token());
                o.writeInt(feedId);
                o.flush();
                DataInputStream in = new DataInputStream(s.getInputStream());
                if (in.readByte() != 1) {
                    throw new IOException("refused by the feeding JVM");
                }
                synchronized (writeLock) {
                    out = o;
                }
                LOG.info("FeederSpout {}: connected to the feeding JVM at {}:{}", feedId, server.host(), server.port());
                warned = false;
                while (!closed) {
                    inbox.put((List<Object>) FeedServer.readMessage(in));
                }
            } catch (IOException | ClassCastException e) {
                if (!closed && !warned) {
                    LOG.warn("FeederSpout {}: no connection to the feeding JVM at {}:{} ({}); retrying", feedId,
                            server.host(), server.port(), e.getMessage());
                    warned = true;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                synchronized (writeLock) {
                    out = null;
                }
            }
            if (!closed) {
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}

package org.apache.storm.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The feeding side of {@link FeederSpout}s, one per JVM (started by the first FeederSpout
 * made in it): a loopback TCP server from which the spout tasks, in their instance JVMs,
 * take the fed tuples.
 *
 * <p>Wire (each message: 4-byte big-endian length, then a Java-serialized object):
 * the task sends its hello raw ({@value #TOKEN_BYTES} secret bytes, then the feed id as an
 * int) and gets one byte {@code 1}; then the server sends {@code Values(tuple, msgId)} per
 * fed tuple and the task sends {@code Object[]{Boolean acked, msgId}} per ack or fail.
 * A wrong secret or unknown feed closes the connection. Messages are Java-serialized, as
 * Storm's in-process queue would pass the objects themselves; only holders of the secret,
 * which travels inside the submitted topology, can connect.
 *
 * <p>Invariant: a tuple taken from a feed's queue and not written (connection lost) goes
 * back to the head of the queue, so another task (or the reconnecting one) gets it.
 */
final class FeedServer {
    private static final Logger LOG = LoggerFactory.getLogger(FeedServer.class);
    static final int TOKEN_BYTES = 32;
    static final int MAX_MESSAGE_BYTES = 64 << 20;
    private static final long WAIT_FOR_READER_MILLIS = 20_000;

    /** Where the spout tasks connect. */
    record Address(String host, int port, byte[] token) implements Serializable {
    }

    private static final class Feed {
        final LinkedBlockingDeque<Object> queue = new LinkedBlockingDeque<>();
        final AtomicBoolean hasReader = new AtomicBoolean();
        volatile AckFailDelegate delegate;
    }

    private static FeedServer instance;

    private final ServerSocket server;
    private final byte[] token = new byte[TOKEN_BYTES];
    private final AtomicInteger nextId = new AtomicInteger();
    private final ConcurrentHashMap<Integer, Feed> feeds = new ConcurrentHashMap<>();

    private FeedServer() throws IOException {
        new SecureRandom().nextBytes(token);
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "feeder-spout-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static synchronized FeedServer get() {
        if (instance == null) {
            try {
                instance = new FeedServer();
            } catch (IOException e) {
                throw new IllegalStateException("FeederSpout: cannot listen on the loopback interface: "
                        + e.getMessage(), e);
            }
        }
        return instance;
    }

    Address address() {
        return new Address(server.getInetAddress().getHostAddress(), server.getLocalPort(), token.clone());
    }

    int newFeed() {
        int id = nextId.incrementAndGet();
        feeds.put(id, new Feed());
        return id;
    }

    private Feed feed(int id) {
        Feed f = feeds.get(id);
        if (f == null) {
            throw new IllegalStateException("FeederSpout " + id + " was not created in this JVM; feed it where it "
                    + "was created");
        }
        return f;
    }

    void setDelegate(int id, AckFailDelegate delegate) {
        feed(id).delegate = delegate;
    }

    void enqueue(int id, Object message) {
        feed(id).queue.add(message);
    }

    /** As Storm's InprocMessaging: waits for a reader up to 20 s, then logs and goes on. */
    void waitForReader(int id) {
        Feed f = feed(id);
        long start = System.currentTimeMillis();
        while (!f.hasReader.get()) {
            if (System.currentTimeMillis() - start > WAIT_FOR_READER_MILLIS) {
                LOG.error("DONE WAITING FOR READER AFTER {} ms", System.currentTimeMillis() - start);
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "feeder-spout-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("FeederSpout server: accept failed: {}", e.getMessage());
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            socket.setSoTimeout(10_000);
            byte[] presented = new byte[TOKEN_BYTES];
            in.readFully(presented);
            int id = in.readInt();
            Feed feed = feeds.get(id);
            if (!MessageDigest.isEqual(token, presented) || feed == null) {
                LOG.warn("FeederSpout server: refused a connection (bad secret or unknown feed {})", id);
                return;
            }
            socket.setSoTimeout(0);
            out.writeByte(1);
            out.flush();
            feed.hasReader.set(true);
            AtomicBoolean open = new AtomicBoolean(true);
            Thread reports = new Thread(() -> readReports(in, feed, open), "feeder-spout-acks");
            reports.setDaemon(true);
            reports.start();
            while (open.get()) {
                Object message = feed.queue.poll(200, TimeUnit.MILLISECONDS);
                if (message == null) {
                    continue;
                }
                try {
                    writeMessage(out, message);
                } catch (IOException e) {
                    feed.queue.offerFirst(message);
                    throw e;
                }
            }
        } catch (IOException e) {
            LOG.debug("FeederSpout server: connection ended: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void readReports(DataInputStream in, Feed feed, AtomicBoolean open) {
        try {
            while (true) {
                Object[] report = (Object[]) readMessage(in);
                AckFailDelegate d = feed.delegate;
                if (d == null) {
                    continue;
                }
                if (Boolean.TRUE.equals(report[0])) {
                    d.ack(report[1]);
                } else {
                    d.fail(report[1]);
                }
            }
        } catch (IOException | ClassCastException | ArrayIndexOutOfBoundsException e) {
            LOG.debug("FeederSpout server: reports ended: {}", e.getMessage());
        } finally {
            open.set(false);
        }
    }

    static void writeMessage(DataOutputStream out, Object message) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
            oos.writeObject(message);
        }
        out.writeInt(bytes.size());
        bytes.writeTo(out);
        out.flush();
    }

    static Object readMessage(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0 || len > MAX_MESSAGE_BYTES) {
            throw new IOException("FeederSpout message of " + len + " bytes refused");
        }
        byte[] body = new byte[len];
        in.readFully(body);
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(body)) {
            @Override
            protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                if (loader != null) {
                    try {
                        return Class.forName(desc.getName(), false, loader);
                    } catch (ClassNotFoundException e) {
                        // fall back to the default resolution
                    }
                }
                return super.resolveClass(desc);
            }
        }) {
            return ois.readObject();
        } catch (ClassNotFoundException e) {
            throw new IOException("FeederSpout message of an unknown class: " + e.getMessage(), e);
        }
    }
}

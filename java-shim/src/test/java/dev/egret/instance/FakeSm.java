package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.egret.proto.AckEntry;
import dev.egret.proto.Hello;
import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.InstancePlan;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.PeerRole;
import dev.egret.proto.RootId;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologyState;
import dev.egret.proto.TreeEvent;
import dev.egret.proto.TreeEvents;
import dev.egret.proto.TreeOutcome;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import dev.egret.serialization.TupleValuesCodec;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.HelloServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fake stream manager on a Unix socket: accepts instances, checks their hello, sends
 * assignments and messages, and reads what they send on a background thread so tests can
 * wait with a timeout.
 */
final class FakeSm implements AutoCloseable {
    static final byte[] TOKEN = new byte[32];
    static final TupleValuesCodec CODEC = new TupleValuesCodec(new HashMap<>());

    final Path socket;
    private ServerSocketChannel server;

    FakeSm(Path socket) throws IOException {
        this.socket = socket;
        bind();
    }

    void bind() throws IOException {
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
    }

    /** Stops listening and removes the socket file (a dead stream manager). */
    void unbind() throws IOException {
        server.close();
        Files.deleteIfExists(socket);
    }

    @Override
    public void close() throws IOException {
        unbind();
    }

    /** Starts an instance that reconnects within {@code windowSecs}; returns its exit code future. */
    CompletableFuture<Integer> startInstance(String instanceId, long windowSecs) {
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                exit.complete(Instance.run(() -> FrameChannel.connectUnix(socket, 64 << 20), TOKEN, instanceId,
                        TimeUnit.SECONDS.toNanos(windowSecs)));
            } catch (Throwable e) {
                exit.completeExceptionally(e);
            }
        }, "instance-" + instanceId);
        t.setDaemon(true);
        t.start();
        return exit;
    }

    /** Accepts the next connection and answers its hello. */
    Conn accept(String instanceId) throws IOException {
        FrameChannel ch = new FrameChannel(server.accept(), 64 << 20);
        Hello hello = HelloServer.accept(ch, TOKEN, PeerRole.PEER_ROLE_INSTANCE);
        assertEquals(instanceId, hello.getPeerId());
        return new Conn(ch);
    }

    static InstanceAssignment assignment(Topology topo, Path workDir, String instanceId, String component,
                                         Integer... tasks) {
        return InstanceAssignment.newBuilder().setTopology(Plans.withSettings(topo)).putAllTaskComponent(Plans.taskComponent(topo)).setContainerIndex(1)
                .setWorkDir(workDir.toString()).setState(TopologyState.TOPOLOGY_STATE_RUNNING)
                .setInstance(InstancePlan.newBuilder().setInstanceId(instanceId).setComponent(component)
                        .addAllTaskIds(Arrays.asList(tasks))).build();
    }

    static RootId root(int task, long key) {
        return RootId.newBuilder().setSpoutTask(task).setKey(key).build();
    }

    static TupleData tuple(int dest, int src, List<Object> values, long edge, RootId... roots) {
        return TupleData.newBuilder().setDestTask(dest).setSrcTask(src).setStream("default")
                .setValues(ByteString.copyFrom(CODEC.serialize(values))).setEdgeId(edge)
                .addAllRoots(Arrays.asList(roots)).build();
    }

    static List<Object> values(TupleData td) {
        return CODEC.deserialize(td.getValues().toByteArray());
    }

    /** One instance's connection, as the stream manager sees it. */
    static final class Conn implements AutoCloseable {
        final FrameChannel channel;
        private final LinkedBlockingQueue<Object> in = new LinkedBlockingQueue<>();
        private static final Object CLOSED = new Object();
        /** While true the reader does not read the socket (the stream manager's backpressure on a spout). */
        private boolean paused;

        Conn(FrameChannel channel) {
            this.channel = channel;
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        awaitUnpaused();
                        in.add(channel.read(InstanceToStreamManager.parser()));
                    }
                } catch (IOException e) {
                    in.add(CLOSED);
                } catch (InterruptedException e) {
                    in.add(CLOSED);
                }
            }, "fake-sm-reader");
            t.setDaemon(true);
            t.start();
        }

        /** Stops reading the socket after the frame being read, if any. */
        synchronized void pauseReading() {
            paused = true;
        }

        synchronized void resumeReading() {
            paused = false;
            notifyAll();
        }

        private synchronized void awaitUnpaused() throws InterruptedException {
            while (paused) {
                wait();
            }
        }

        void send(StreamManagerToInstance m) throws IOException {
            channel.write(m);
        }

        void assign(InstanceAssignment a) throws IOException {
            send(StreamManagerToInstance.newBuilder().setAssignment(a).build());
        }

        void sendTuples(TupleData... tuples) throws IOException {
            send(StreamManagerToInstance.newBuilder()
                    .setTuples(TupleBatch.newBuilder().addAllTuples(Arrays.asList(tuples))).build());
        }

        void sendEvent(TreeOutcome outcome, RootId root) throws IOException {
            send(StreamManagerToInstance.newBuilder().setTreeEvents(TreeEvents.newBuilder()
                    .addEvents(TreeEvent.newBuilder().setOutcome(outcome).setRoot(root))).build());
        }

        /** The next message, or null after {@code millis}; fails when the connection closed. */
        InstanceToStreamManager poll(long millis) throws InterruptedException {
            Object o = in.poll(millis, TimeUnit.MILLISECONDS);
            if (o == CLOSED) {
                in.add(CLOSED);
                throw new AssertionError("the instance closed the connection");
            }
            return (InstanceToStreamManager) o;
        }

        void awaitReady() throws InterruptedException {
            InstanceToStreamManager m = poll(10_000);
            assertTrue(m != null && m.getMessageCase() == InstanceToStreamManager.MessageCase.READY,
                    "expected ready, got " + m);
        }

        /** Tuple batches received within {@code millis} (stops early once {@code tuples} tuples arrived). */
        List<TupleBatch> batches(int tuples, long millis) throws InterruptedException {
            List<TupleBatch> out = new ArrayList<>();
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (n < tuples) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    break;
                }
                InstanceToStreamManager m = poll(left);
                if (m != null && m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                    out.add(m.getTuples());
                    n += m.getTuples().getTuplesCount();
                }
            }
            return out;
        }

        /** Collects ack entries and tuples until {@code acks} entries arrived (or 5 s passed). */
        Received receive(int acks, int tuples) throws InterruptedException {
            Received r = new Received();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (r.acks.size() < acks || r.tuples.size() < tuples) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("expected " + acks + " acks and " + tuples + " tuples, got " + r);
                }
                InstanceToStreamManager m = poll(left);
                if (m != null && m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                    r.acks.addAll(m.getTuples().getAcksList());
                    r.tuples.addAll(m.getTuples().getTuplesList());
                }
            }
            return r;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    static final class Received {
        final List<AckEntry> acks = new ArrayList<>();
        final List<TupleData> tuples = new ArrayList<>();

        @Override
        public String toString() {
            return "acks=" + acks + " tuples=" + tuples.size();
        }
    }
}

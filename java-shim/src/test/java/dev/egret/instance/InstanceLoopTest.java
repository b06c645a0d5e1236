package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.egret.proto.Hello;
import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.InstancePlan;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.PeerRole;
import dev.egret.proto.StateChange;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologyState;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import dev.egret.serialization.TupleValuesCodec;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.HelloServer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Runs a real instance against an in-process fake stream manager over a Unix socket. */
class InstanceLoopTest {
    private static final byte[] TOKEN = new byte[32];

    private Path dir;
    private ServerSocketChannel server;

    @BeforeEach
    void setUp() throws Exception {
        TestComponents.EVENTS.clear();
        dir = Files.createTempDirectory("egret-instance-test");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("sm.sock")));
    }

    @AfterEach
    void tearDown() throws Exception {
        server.close();
        Files.deleteIfExists(dir.resolve("sm.sock"));
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Starts the instance on its own thread and returns the SM side of its connection after the hello. */
    private FrameChannel startInstance(String instanceId, CompletableFuture<Integer> exit) throws Exception {
        Thread t = new Thread(() -> {
            try {
                exit.complete(Instance.run(FrameChannel.connectUnix(dir.resolve("sm.sock"), 64 << 20), TOKEN, instanceId));
            } catch (Throwable e) {
                exit.completeExceptionally(e);
            }
        }, "instance-under-test");
        t.setDaemon(true);
        t.start();
        FrameChannel sm = new FrameChannel(server.accept(), 64 << 20);
        Hello hello = HelloServer.accept(sm, TOKEN, PeerRole.PEER_ROLE_INSTANCE);
        assertEquals(instanceId, hello.getPeerId());
        return sm;
    }

    private static InstanceToStreamManager next(FrameChannel sm) throws Exception {
        return sm.read(InstanceToStreamManager.parser());
    }

    /** Collects tuples from batches until n arrived. */
    private static List<TupleData> tuples(FrameChannel sm, int n) throws Exception {
        List<TupleData> out = new ArrayList<>();
        while (out.size() < n) {
            InstanceToStreamManager m = next(sm);
            if (m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                out.addAll(m.getTuples().getTuplesList());
            }
        }
        return out;
    }

    private static void awaitEvent(String event) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!TestComponents.EVENTS.contains(event)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no event '" + event + "' in " + TestComponents.EVENTS);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void spoutInstanceEmitsAddressedBatchesAcksAndFollowsState() throws Exception {
        // exclaim: tasks 1, 2; spout: tasks 3, 4 (both in this instance).
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{\"egret.batch.size\": 4, \"topology.acker.executors\": 0}")
                .addComponents(Plans.bolt("exclaim", 2, new TestComponents.ExclaimBolt())
                        .addInputs(Plans.input("spout", "default", Plans.fields("word"))))
                .addComponents(Plans.spout("spout", 2, new TestComponents.CountingSpout(3))
                        .addStreams(Plans.stream("default", "word")))
                .build();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        FrameChannel sm = startInstance("spout-0", exit);
        sm.write(StreamManagerToInstance.newBuilder().setAssignment(InstanceAssignment.newBuilder()
                .setTopology(Plans.withSettings(topo)).putAllTaskComponent(Plans.taskComponent(topo)).setContainerIndex(1).setWorkDir(dir.toString())
                .setState(TopologyState.TOPOLOGY_STATE_RUNNING)
                .setInstance(InstancePlan.newBuilder().setInstanceId("spout-0").setComponent("spout")
                        .addTaskIds(3).addTaskIds(4))).build());

        assertEquals(InstanceToStreamManager.MessageCase.READY, next(sm).getMessageCase());
        List<TupleData> got = tuples(sm, 6);
        TupleValuesCodec codec = new TupleValuesCodec(new HashMap<>());
        Map<Integer, List<String>> bySource = new HashMap<>();
        for (TupleData td : got) {
            List<Object> values = codec.deserialize(td.getValues().toByteArray());
            String word = (String) values.get(0);
            assertEquals("default", td.getStream());
            int expected = 1 + Math.floorMod(Arrays.deepHashCode(new Object[] {word}), 2);
            assertEquals(expected, td.getDestTask(), "fields grouping of " + word);
            bySource.computeIfAbsent(td.getSrcTask(), k -> new ArrayList<>()).add(word);
        }
        assertEquals(List.of("w0", "w1", "w2"), bySource.get(3));
        assertEquals(List.of("w0", "w1", "w2"), bySource.get(4));
        awaitEvent("ack 2");
        assertTrue(TestComponents.EVENTS.contains("open spout:3 index 0"));
        assertTrue(TestComponents.EVENTS.contains("open spout:4 index 1"));
        assertTrue(TestComponents.EVENTS.contains("activate 3"));

        sm.write(StreamManagerToInstance.newBuilder().setState(StateChange.newBuilder()
                .setState(TopologyState.TOPOLOGY_STATE_DEACTIVATED)).build());
        awaitEvent("deactivate 4");

        sm.close();
        assertEquals(Instance.EXIT_CONNECTION_LOST, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void boltInstanceExecutesByDestTaskEmitsDownstreamAndTicks() throws Exception {
        // exclaim: 1, 2 (this instance); sink: 3; spout: 4.
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{}")
                .addComponents(Plans.bolt("exclaim", 2, new TestComponents.ExclaimBolt())
                        .setConfigJson("{\"topology.tick.tuple.freq.secs\": 1}")
                        .addInputs(Plans.input("spout", "default", Plans.shuffle()))
                        .addStreams(Plans.stream("default", "word")))
                .addComponents(Plans.bolt("sink", 1, new TestComponents.NullBolt())
                        .addInputs(Plans.input("exclaim", "default", Plans.fields())))
                .addComponents(Plans.spout("spout", 1, new TestComponents.CountingSpout(0))
                        .addStreams(Plans.stream("default", "word")))
                .build();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        FrameChannel sm = startInstance("exclaim-0", exit);
        sm.write(StreamManagerToInstance.newBuilder().setAssignment(InstanceAssignment.newBuilder()
                .setTopology(Plans.withSettings(topo)).putAllTaskComponent(Plans.taskComponent(topo)).setContainerIndex(1).setWorkDir(dir.toString())
                .setState(TopologyState.TOPOLOGY_STATE_RUNNING)
                .setInstance(InstancePlan.newBuilder().setInstanceId("exclaim-0").setComponent("exclaim")
                        .addTaskIds(1).addTaskIds(2))).build());
        assertEquals(InstanceToStreamManager.MessageCase.READY, next(sm).getMessageCase());

        TupleValuesCodec codec = new TupleValuesCodec(new HashMap<>());
        ByteString hello = ByteString.copyFrom(codec.serialize(Arrays.asList("hello")));
        ByteString bye = ByteString.copyFrom(codec.serialize(Arrays.asList("bye")));
        sm.write(StreamManagerToInstance.newBuilder().setTuples(TupleBatch.newBuilder()
                .addTuples(TupleData.newBuilder().setDestTask(2).setSrcTask(4).setStream("default").setValues(hello))
                .addTuples(TupleData.newBuilder().setDestTask(1).setSrcTask(4).setStream("default").setValues(bye)))
                .build());

        List<TupleData> out = tuples(sm, 2);
        assertEquals(3, out.get(0).getDestTask());
        assertEquals(2, out.get(0).getSrcTask());
        assertEquals(List.of("hello!"), codec.deserialize(out.get(0).getValues().toByteArray()));
        assertEquals(3, out.get(1).getDestTask());
        assertEquals(1, out.get(1).getSrcTask());
        assertEquals(List.of("bye!"), codec.deserialize(out.get(1).getValues().toByteArray()));
        assertTrue(TestComponents.EVENTS.contains("execute 2 hello from spout:4"));
        assertTrue(TestComponents.EVENTS.contains("execute 1 bye from spout:4"));

        awaitEvent("tick 1 1");
        awaitEvent("tick 2 1");

        sm.close();
        assertEquals(Instance.EXIT_CONNECTION_LOST, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aFailingPrepareReportsAFatalErrorAndExits() throws Exception {
        Topology topo = Topology.newBuilder().setName("t").setConfigJson("{}")
                .addComponents(Plans.bolt("bad", 1, new FailingBolt()))
                .build();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        FrameChannel sm = startInstance("bad-0", exit);
        sm.write(StreamManagerToInstance.newBuilder().setAssignment(InstanceAssignment.newBuilder()
                .setTopology(Plans.withSettings(topo)).putAllTaskComponent(Plans.taskComponent(topo)).setContainerIndex(1).setWorkDir(dir.toString())
                .setInstance(InstancePlan.newBuilder().setInstanceId("bad-0").setComponent("bad").addTaskIds(1)))
                .build());
        InstanceToStreamManager m = next(sm);
        assertEquals(InstanceToStreamManager.MessageCase.ERROR, m.getMessageCase());
        assertTrue(m.getError().getFatal());
        assertEquals(1, m.getError().getTaskId());
        assertTrue(m.getError().getMessage().contains("boom in prepare"), m.getError().getMessage());
        assertEquals(Instance.EXIT_TASK_FAILED, exit.get(10, TimeUnit.SECONDS));
        sm.close();
    }

    static final class FailingBolt implements org.apache.storm.task.IBolt {
        @Override
        public void prepare(Map<String, Object> conf, org.apache.storm.task.TopologyContext ctx,
                            org.apache.storm.task.OutputCollector c) {
            throw new IllegalStateException("boom in prepare");
        }

        @Override
        public void execute(org.apache.storm.tuple.Tuple input) {
        }

        @Override
        public void cleanup() {
        }
    }
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.RootId;
import dev.egret.proto.Topology;
import dev.egret.proto.TreeOutcome;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.BaseWorkerHook;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.task.WorkerUserContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Task and worker hooks in the instance, against a fake stream manager: auto hooks from
 * {@code topology.auto.task.hooks} are prepared before open/prepare, hooks added with
 * {@code addTaskHook} too, and each sees exactly the emits, spout acks/fails (with
 * latencies), bolt executes, acks and fails of its task; worker hooks start before the
 * tasks and their resources reach the tasks.
 */
class TaskHooksTest {
    private Path dir;
    private FakeSm sm;

    /** Records every call as an event ("hook emit default [1, 2] m0", ...). */
    public static class RecordingHook extends BaseTaskHook {
        private String tag = "auto";
        private int task;

        public RecordingHook() {
        }

        RecordingHook(String tag) {
            this.tag = tag;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            task = context.getThisTaskId();
            TestComponents.EVENTS.add(tag + " prepare " + task);
        }

        @Override
        public void emit(EmitInfo info) {
            TestComponents.EVENTS.add(tag + " emit " + info.taskId + " " + info.stream + " " + info.outTasks + " "
                    + info.values.get(0));
        }

        @Override
        public void spoutAck(SpoutAckInfo info) {
            assertNotNull(info.completeLatencyMs);
            assertTrue(info.completeLatencyMs >= 0);
            TestComponents.EVENTS.add(tag + " spoutAck " + info.spoutTaskId + " " + info.messageId);
        }

        @Override
        public void spoutFail(SpoutFailInfo info) {
            assertNotNull(info.failLatencyMs);
            TestComponents.EVENTS.add(tag + " spoutFail " + info.spoutTaskId + " " + info.messageId);
        }

        @Override
        public void boltExecute(BoltExecuteInfo info) {
            assertNotNull(info.executeLatencyMs);
            TestComponents.EVENTS.add(tag + " execute " + info.executingTaskId + " " + info.tuple.getValue(0));
        }

        @Override
        public void boltAck(BoltAckInfo info) {
            assertNotNull(info.processLatencyMs);
            TestComponents.EVENTS.add(tag + " boltAck " + info.ackingTaskId + " " + info.tuple.getValue(0));
        }

        @Override
        public void boltFail(BoltFailInfo info) {
            TestComponents.EVENTS.add(tag + " boltFail " + info.failingTaskId + " " + info.tuple.getValue(0));
        }

        @Override
        public void cleanup() {
            TestComponents.EVENTS.add(tag + " cleanup " + task);
        }
    }

    /** Adds its own hook in prepare; acks "ok*" tuples (emitting them on), fails the rest. */
    static final class HookedBolt implements IBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            collector = c;
            ctx.addTaskHook(new RecordingHook("added"));
            TestComponents.EVENTS.add("prepare " + ctx.getThisTaskId() + " resource " + ctx.getResource("greeting"));
        }

        @Override
        public void execute(Tuple input) {
            String v = input.getString(0);
            if (v.startsWith("ok")) {
                collector.emit(input, new Values(v));
                collector.ack(input);
            } else {
                collector.fail(input);
            }
        }

        @Override
        public void cleanup() {
        }
    }

    /** Publishes a resource for the tasks. */
    static final class GreetingWorkerHook extends BaseWorkerHook {
        private static final long serialVersionUID = 1L;

        @Override
        public void start(Map<String, Object> topoConf, WorkerUserContext context) {
            context.setResource("greeting", "hello");
            TestComponents.EVENTS.add("worker start " + context.getThisWorkerTasks());
        }

        @Override
        public void shutdown() {
            TestComponents.EVENTS.add("worker shutdown");
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        TestComponents.EVENTS.clear();
        dir = Files.createTempDirectory("egret-hooks-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        sm.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static final String AUTO_HOOKS = "\"topology.auto.task.hooks\": [\"" + RecordingHook.class.getName() + "\"]";

    private FakeSm.Conn start(Topology topo, String instanceId, String component, Integer... tasks)
            throws Exception {
        sm.startInstance(instanceId, 0);
        FakeSm.Conn c = sm.accept(instanceId);
        c.assign(FakeSm.assignment(topo, dir, instanceId, component, tasks));
        c.awaitReady();
        return c;
    }

    private static void awaitEvent(String event) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (!TestComponents.EVENTS.contains(event)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no event '" + event + "' in " + TestComponents.EVENTS);
            }
            Thread.sleep(5);
        }
    }

    private static long count(String prefix) {
        return TestComponents.EVENTS.stream().filter(e -> e.startsWith(prefix)).count();
    }

    private static int indexOf(String event) {
        return new ArrayList<>(TestComponents.EVENTS).indexOf(event);
    }

    @Test
    void autoHooksSeeEveryEmitAndEverySpoutAckAndFail() throws Exception {
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1")
                .setConfigJson("{\"egret.batch.size\": 100, " + AUTO_HOOKS + "}")
                .addComponents(Plans.bolt("sink", 2, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("spout", "default", Plans.all())))
                .addComponents(Plans.spout("spout", 1, new AckingComponents.TrackedSpout(3))
                        .addStreams(Plans.stream("default", "word")))
                .build();
        FakeSm.Conn c = start(topo, "spout-0", "spout", 3);
        Map<String, RootId> roots = new HashMap<>();
        int n = 0;
        for (TupleBatch b : c.batches(6, 5000)) {
            for (TupleData td : b.getTuplesList()) {
                roots.put((String) FakeSm.values(td).get(0), td.getRoots(0));
                n++;
            }
        }
        assertEquals(6, n);
        // Prepared when the task is created, before the spout opens.
        assertTrue(indexOf("auto prepare 3") >= 0 && indexOf("auto prepare 3") < indexOf("open 3"),
                TestComponents.EVENTS.toString());
        for (int i = 0; i < 3; i++) {
            awaitEvent("auto emit 3 default [1, 2] m" + i);
        }
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m0"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m0"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_FAILED, roots.get("m1"));
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, roots.get("m2"));
        awaitEvent("auto spoutAck 3 0");
        awaitEvent("auto spoutFail 3 1");
        awaitEvent("auto spoutAck 3 2");
        // The hook runs after the spout's own ack, as in Storm.
        assertTrue(indexOf("ack 0") < indexOf("auto spoutAck 3 0"));
        Thread.sleep(100);
        assertEquals(2, count("auto spoutAck"));
        assertEquals(1, count("auto spoutFail"));
        c.close();
        awaitEvent("auto cleanup 3");
    }

    @Test
    void boltHooksSeeExecutesAcksFailsAndWorkerHooksStartFirst() throws Exception {
        String workerHooks = "\"" + WorkerHooks.CONFIG_KEY + "\": [\""
                + Base64.getEncoder().encodeToString(Utils.javaSerialize(new GreetingWorkerHook())) + "\"]";
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1")
                .setConfigJson("{\"egret.batch.size\": 1, " + AUTO_HOOKS + ", " + workerHooks + "}")
                .addComponents(Plans.bolt("b", 1, new HookedBolt())
                        .addInputs(Plans.input("spout", "default", Plans.shuffle()))
                        .addStreams(Plans.stream("default", "word")))
                .addComponents(Plans.bolt("sink", 1, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("b", "default", Plans.shuffle())))
                .addComponents(Plans.spout("spout", 1, new AckingComponents.TrackedSpout(0))
                        .addStreams(Plans.stream("default", "word")))
                .build();
        FakeSm.Conn c = start(topo, "b-0", "b", 1);
        assertTrue(indexOf("worker start [1]") >= 0 && indexOf("worker start [1]") < indexOf("auto prepare 1"),
                TestComponents.EVENTS.toString());
        assertTrue(TestComponents.EVENTS.contains("prepare 1 resource hello"), TestComponents.EVENTS.toString());
        assertTrue(TestComponents.EVENTS.contains("added prepare 1"));
        RootId r = FakeSm.root(3, 7);
        c.sendTuples(FakeSm.tuple(1, 3, List.of("ok1"), 11L, r), FakeSm.tuple(1, 3, List.of("bad"), 12L, r),
                FakeSm.tuple(1, 3, List.of("ok2"), 13L, r));
        for (String tag : List.of("auto", "added")) {
            awaitEvent(tag + " execute 1 ok1");
            awaitEvent(tag + " execute 1 bad");
            awaitEvent(tag + " execute 1 ok2");
            awaitEvent(tag + " boltAck 1 ok1");
            awaitEvent(tag + " boltAck 1 ok2");
            awaitEvent(tag + " boltFail 1 bad");
            awaitEvent(tag + " emit 1 default [2] ok1");
            awaitEvent(tag + " emit 1 default [2] ok2");
        }
        Thread.sleep(100);
        assertEquals(6, count("auto execute") + count("added execute"));
        assertEquals(4, count("auto boltAck") + count("added boltAck"));
        // ok1 and ok2 were emitted on, each seen by both hooks.
        assertEquals(4, count("auto emit") + count("added emit"));
        c.close();
        awaitEvent("worker shutdown");
        awaitEvent("added cleanup 1");
        assertEquals(1, count("worker shutdown"));
    }

    @Test
    void anAutoHookThatIsNotATaskHookFailsTheTaskWithItsName() {
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(ClassCastException.class,
                () -> InstanceExecutor.newTaskHook("java.lang.Object"));
        assertTrue(e.getMessage().contains("java.lang.Object"));
        assertEquals(List.of("a", "b"), InstanceExecutor.autoTaskHooks(Map.of("topology.auto.task.hooks",
                List.of("a", "b"))));
    }
}

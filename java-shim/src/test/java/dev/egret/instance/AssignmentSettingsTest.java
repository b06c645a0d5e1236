package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.Bridge;
import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.InstancePlan;
import dev.egret.proto.Isolation;
import dev.egret.proto.SchedPolicy;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologySettings;
import dev.egret.proto.TopologyState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Rust resolves, Java obeys: the instance takes its settings and task ids from the assignment. */
class AssignmentSettingsTest {
    /** A config saying other things than the settings: the config must not be read for them. */
    private static final String CONFIG = "{\"egret.batch.size\": 256, \"egret.batch.flush.ms\": \"5\","
            + " \"egret.instance.inbound.bytes\": 1, \"egret.instance.outbound.bytes\": \"2\","
            + " \"egret.frame.max.bytes\": \"70000\", \"topology.acker.executors\": 3,"
            + " \"topology.message.timeout.secs\": 30, \"topology.enable.message.timeouts\": true}";

    private static final TopologySettings SETTINGS = TopologySettings.newBuilder()
            .setFrameMaxBytes(123_456).setBatchSize(7).setBatchFlushMs(13).setBatchFlushIdle(true)
            .setInstanceInboundBytes(300_001).setInstanceOutboundBytes(400_003)
            .setHighWatermarkBytes(700_000).setLowWatermarkBytes(100_000)
            .setAcking(false).setMessageTimeoutSecs(11).setMessageTimeouts(false)
            .setAlignmentBufferBytes(4096).setCheckpointFullEvery(8).setAlwaysTrySerialize(true)
            .setIsolation(Isolation.ISOLATION_NONE).setJvmOverheadMb(300).setBridge(Bridge.BRIDGE_JNI)
            .setSchedPolicy(SchedPolicy.SCHED_POLICY_BATCH).build();

    private static Topology topology(boolean withSettings) {
        Topology.Builder t = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson(CONFIG)
                .addComponents(Plans.bolt("exclaim", 2, new TestComponents.ExclaimBolt())
                        .addInputs(Plans.input("spout", "default", Plans.fields("word"))))
                .addComponents(Plans.spout("spout", 2, new TestComponents.CountingSpout(3))
                        .addStreams(Plans.stream("default", "word")));
        if (withSettings) {
            t.setSettings(SETTINGS);
        }
        return t.build();
    }

    /** Task ids the packing plan chose, not Storm's numbering of this topology (1,2 | 3,4). */
    private static InstanceAssignment assignment(Topology topo) {
        return InstanceAssignment.newBuilder().setTopology(topo).setContainerIndex(1)
                .setWorkDir(System.getProperty("java.io.tmpdir")).setState(TopologyState.TOPOLOGY_STATE_RUNNING)
                .putAllTaskComponent(Map.of(10, "spout", 11, "spout", 20, "exclaim", 21, "exclaim"))
                .setInstance(InstancePlan.newBuilder().setInstanceId("spout-0").setComponent("spout")
                        .addTaskIds(10).addTaskIds(11)).build();
    }

    @Test
    void theExecutorUsesTheAssignmentsSettingsNotTheConfig() {
        InstanceAssignment a = assignment(topology(true));
        InstanceExecutor executor = new InstanceExecutor(new TopologyView(a), a, message -> { });
        try {
            assertEquals(7, executor.sink().batchSize());
            assertEquals(TimeUnit.MILLISECONDS.toNanos(13), executor.sink().flushNanos());
            assertEquals(400_003, executor.sink().queueBytes());
            assertEquals(300_001, executor.inbound().maxBytes());
            assertEquals("egret.frame.max.bytes=123456 egret.batch.size=7 egret.batch.flush.ms=13"
                    + " egret.batch.flush.idle=true egret.instance.inbound.bytes=300001 egret.instance.outbound.bytes=400003"
                    + " egret.backpressure.high.watermark.bytes=700000"
                    + " egret.backpressure.low.watermark.bytes=100000 acking=false"
                    + " topology.message.timeout.secs=11 topology.enable.message.timeouts=false"
                    + " egret.isolation=none egret.isolation.jvm.overhead.mb=300 egret.instance.bridge=jni"
                    + " topology.testing.always.try.serialize=true topology.reliability.mode=ATMOST_ONCE egret.checkpoint.alignment.bytes=4096"
                    + " egret.checkpoint.full.every=8 egret.sched.policy=batch",
                    executor.describeSettings(123_456));
        } finally {
            executor.sink().close();
        }
    }

    @Test
    void theViewTakesTheTaskIdsFromTheAssignment() {
        TopologyView view = new TopologyView(assignment(topology(true)));
        assertEquals(List.of(10, 11), view.tasksOf("spout"));
        assertEquals(List.of(20, 21), view.tasksOf("exclaim"));
        assertEquals("exclaim", view.componentOf(21));
        assertEquals(1, view.model().taskIndex(21));
        assertEquals(null, view.componentOf(1));
        // The submitter-side view still numbers as Storm does.
        assertEquals(List.of(3, 4), new TopologyView(topology(true)).tasksOf("spout"));
    }

    @Test
    void anAssignmentWithoutSettingsOrTaskMapIsRefused() {
        InstanceAssignment noSettings = assignment(topology(false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new InstanceExecutor(new TopologyView(noSettings), noSettings, message -> { }));
        assertTrue(e.getMessage().contains("settings"), e.getMessage());
        InstanceAssignment noMap = assignment(topology(true)).toBuilder().clearTaskComponent().build();
        assertThrows(IllegalArgumentException.class, () -> new TopologyView(noMap));
        InstanceAssignment stranger = assignment(topology(true)).toBuilder().putTaskComponent(30, "nope").build();
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class, () -> new TopologyView(stranger));
        assertFalse(s.getMessage().isEmpty());
    }
}

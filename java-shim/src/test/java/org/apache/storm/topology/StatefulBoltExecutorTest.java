package org.apache.storm.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.state.InMemoryKeyValueState;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseStatefulBolt;
import org.apache.storm.tuple.Tuple;
import org.junit.jupiter.api.Test;

class StatefulBoltExecutorTest {
    /** Adds field v to "sum" in its state and acks. */
    static final class SumBolt extends BaseStatefulBolt<KeyValueState<String, Long>> {
        transient KeyValueState<String, Long> state;
        transient List<Long> executed;
        transient List<String> hooks;
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.executed = new ArrayList<>();
            this.hooks = new ArrayList<>();
        }

        @Override
        public void initState(KeyValueState<String, Long> state) {
            this.state = state;
            hooks.add("init:" + state.get("sum", 0L));
        }

        @Override
        public void prePrepare(long txid) {
            hooks.add("prepare:" + txid);
        }

        @Override
        public void preCommit(long txid) {
            hooks.add("commit:" + txid);
        }

        @Override
        public void preRollback() {
            hooks.add("rollback");
        }

        @Override
        public void execute(Tuple input) {
            long v = input.getLongByField("v");
            executed.add(v);
            state.put("sum", state.get("sum", 0L) + v);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new org.apache.storm.tuple.Fields("sum"));
        }
    }

    /** A bolt without state downstream of the stateful one. */
    static final class Sink extends BaseRichBolt {
        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        }

        @Override
        public void execute(Tuple input) {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    private static TopologyBuilder builder(SumBolt bolt) {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout(), 1);
        b.setBolt("sum", bolt, 1).shuffleGrouping("spout");
        b.setBolt("sink", new Sink(), 2).shuffleGrouping("sum");
        return b;
    }

    @Test
    void builderAddsTheCheckpointSpoutAndStream() {
        StormTopology topo = builder(new SumBolt()).createTopology();
        assertTrue(topo.get_spouts().containsKey(CheckpointSpout.CHECKPOINT_COMPONENT_ID));
        assertTrue(topo.get_bolts().get("sum").get_common().get_inputs().containsKey(
                new GlobalStreamId(CheckpointSpout.CHECKPOINT_COMPONENT_ID, CheckpointSpout.CHECKPOINT_STREAM_ID)),
                "a bolt reading a spout reads the checkpoint spout");
        assertTrue(topo.get_bolts().get("sink").get_common().get_inputs().containsKey(
                new GlobalStreamId("sum", CheckpointSpout.CHECKPOINT_STREAM_ID)),
                "a bolt reading a bolt reads that bolt's checkpoint stream");
        assertTrue(topo.get_bolts().get("sum").get_common().get_streams()
                .containsKey(CheckpointSpout.CHECKPOINT_STREAM_ID));
    }

    private static Tuple checkpoint(TopologyView view, String source, long txid, Action action) {
        return Fakes.tuple(view, source, CheckpointSpout.CHECKPOINT_STREAM_ID, txid, action);
    }

    @Test
    void stateFollowsTheCheckpointsAndAcksWaitForTheCommit() throws Exception {
        SumBolt bolt = new SumBolt();
        TopologyView view = Fakes.view(builder(bolt));
        StatefulBoltExecutor<KeyValueState<String, Long>> exec = new StatefulBoltExecutor<>(bolt);
        Fakes.Collector out = new Fakes.Collector();
        InMemoryKeyValueState<String, Long> state = new InMemoryKeyValueState<>();
        exec.prepare(new HashMap<>(), Fakes.context(view, "sum"), new OutputCollector(out), state);
        String cp = CheckpointSpout.CHECKPOINT_COMPONENT_ID;

        Tuple early = Fakes.tuple(view, "spout", "default", 5L, 0L);
        exec.execute(early);
        assertTrue(bolt.executed == null || bolt.executed.isEmpty(), "held until the state is initialized");
        Tuple prepareTooEarly = checkpoint(view, cp, 1, Action.PREPARE);
        exec.execute(prepareTooEarly);
        assertEquals(List.of(prepareTooEarly), out.failed, "PREPARE before INITSTATE fails");
        // The checkpoint spout then recovers: ROLLBACK of txid 1, INITSTATE at txid 0.
        exec.execute(checkpoint(view, cp, 1, Action.ROLLBACK));

        Tuple init = checkpoint(view, cp, 0, Action.INITSTATE);
        exec.execute(init);
        assertEquals(List.of(5L), bolt.executed, "held tuples run after initState");
        assertEquals(List.of("rollback", "init:0"), bolt.hooks);
        Fakes.Emit forwarded = out.emits.get(1);
        assertEquals(CheckpointSpout.CHECKPOINT_STREAM_ID, forwarded.stream);
        assertEquals(List.of(0L, Action.INITSTATE), forwarded.values);
        assertEquals(List.of(init), forwarded.anchors);
        assertEquals(2, out.acked.size());
        assertEquals(init, out.acked.get(1), "the bolt's ack of the held tuple waits for a commit");

        exec.execute(checkpoint(view, cp, 1, Action.PREPARE));
        Tuple later = Fakes.tuple(view, "spout", "default", 7L, 0L);
        exec.execute(later);
        exec.execute(checkpoint(view, cp, 1, Action.COMMIT));
        assertTrue(out.acked.contains(early), "acked once the transaction that covers it committed");
        assertTrue(!out.acked.contains(later), "acked after the prepare: waits for the next commit");

        exec.execute(checkpoint(view, cp, 2, Action.PREPARE));
        Tuple lost = Fakes.tuple(view, "spout", "default", 100L, 0L);
        exec.execute(lost);
        assertEquals(Long.valueOf(112), state.get("sum"));
        exec.execute(checkpoint(view, cp, 2, Action.ROLLBACK));
        assertEquals(Long.valueOf(5), state.get("sum"), "back to the state committed at txid 1");
        assertEquals(List.of(prepareTooEarly, later, lost), out.failed, "uncommitted acks turn into fails");
        assertEquals(List.of("rollback", "init:0", "prepare:1", "commit:1", "prepare:2", "rollback"), bolt.hooks);
    }

    /** spout -> sum (2 tasks) -> sink: the sink reads {@code $checkpoint} from two input tasks. */
    private static TopologyView twoInputTasks() throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout(), 1);
        b.setBolt("sum", new SumBolt(), 2).shuffleGrouping("spout");
        b.setBolt("sink", new Sink(), 1).shuffleGrouping("sum");
        return Fakes.view(b);
    }

    /** A checkpoint tuple from the {@code index}-th task of "sum" to the sink. */
    private static Tuple fromSum(TopologyView view, int index, long txid, Action action) {
        return new org.apache.storm.tuple.TupleImpl(Fakes.context(view, "sink"), List.of(txid, action), "sum",
                view.tasksOf("sum").get(index), CheckpointSpout.CHECKPOINT_STREAM_ID);
    }

    @Test
    void forwarderWaitsForTheCheckpointFromEveryInputTask() throws Exception {
        TopologyView view = twoInputTasks();
        CheckpointTupleForwarder fwd = new CheckpointTupleForwarder(new Sink());
        Fakes.Collector out = new Fakes.Collector();
        fwd.prepare(new HashMap<>(), Fakes.context(view, "sink"), new OutputCollector(out));
        Tuple first = fromSum(view, 0, 3L, Action.PREPARE);
        Tuple second = fromSum(view, 1, 3L, Action.PREPARE);
        fwd.execute(first);
        assertTrue(out.emits.isEmpty(), "one of two input tasks: not yet");
        assertEquals(List.of(first), out.acked);
        fwd.execute(second);
        assertEquals(1, out.emits.size());
        assertEquals(List.of(3L, Action.PREPARE), out.emits.get(0).values);
        assertEquals(List.of(second), out.emits.get(0).anchors);
        assertEquals(List.of(first, second), out.acked);
    }

    @Test
    void effectivelyOnceAnActionWaitsForEveryInputTaskOfItsRoundAfterARollback() throws Exception {
        TopologyView view = twoInputTasks();
        CheckpointTupleForwarder fwd = new CheckpointTupleForwarder(new Sink());
        Fakes.Collector out = new Fakes.Collector();
        dev.egret.instance.EffectivelyOnceMode.set(true);
        try {
            fwd.prepare(new HashMap<>(), Fakes.context(view, "sink"), new OutputCollector(out));
            // A PREPARE whose other copy was lost with a killed process; the round rolls back.
            fwd.execute(fromSum(view, 0, 3L, Action.PREPARE));
            fwd.execute(fromSum(view, 0, 3L, Action.ROLLBACK));
            // The ROLLBACK is sent again (its first round failed): the first task's copy of the
            // new round is not the second task's.
            fwd.execute(fromSum(view, 0, 3L, Action.ROLLBACK));
            assertTrue(out.emits.isEmpty(), "one input task's ROLLBACK, twice: not yet");
            fwd.execute(fromSum(view, 1, 3L, Action.ROLLBACK));
            assertEquals(List.of(List.of(3L, Action.ROLLBACK)), emitted(out));
            fwd.execute(fromSum(view, 1, 2L, Action.INITSTATE));
            fwd.execute(fromSum(view, 0, 2L, Action.INITSTATE));
            assertEquals(2, out.emits.size());
            // The PREPARE of txid 3 again: the copy left from before the rollback does not count.
            fwd.execute(fromSum(view, 0, 3L, Action.PREPARE));
            assertEquals(2, out.emits.size(), "the first task's PREPARE of the new round alone: not yet");
            fwd.execute(fromSum(view, 1, 3L, Action.PREPARE));
            assertEquals(List.of(3L, Action.PREPARE), out.emits.get(2).values);
            assertEquals(3, out.emits.size());
            assertTrue(out.failed.isEmpty(), out.failed.toString());
        } finally {
            dev.egret.instance.EffectivelyOnceMode.set(false);
        }
    }

    private static List<List<Object>> emitted(Fakes.Collector out) {
        List<List<Object>> values = new ArrayList<>();
        for (Fakes.Emit e : out.emits) {
            values.add(e.values);
        }
        return values;
    }
}

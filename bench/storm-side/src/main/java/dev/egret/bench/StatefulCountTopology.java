package dev.egret.bench;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.topology.base.BaseStatefulBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * The workload of {@code egret bench --guarantees}: a replayable spout (every
 * message it has not seen acked is emitted again after its {@code fail}, as
 * {@code KafkaSpout} replays) into a stateful count bolt (Storm's
 * {@code BaseStatefulBolt} over a {@code KeyValueState} of counts per key,
 * behind a fields grouping), so that the delivery guarantee
 * ({@code topology.reliability.mode}) and the checkpoint interval
 * ({@code topology.state.checkpoint.interval.ms}) are what differ between runs.
 *
 * <p>Arguments: {@code [spouts=N] [bolts=N] [keys=N] [name=TOPOLOGY]}
 * (defaults 1, 2, 1000, {@code stateful-count}). The count bolt is
 * {@link #COUNT}; {@code egret bench} kills one of its JVMs to measure recovery.
 */
public final class StatefulCountTopology {
    /** The stateful bolt's component id. */
    public static final String COUNT = "count";

    private StatefulCountTopology() {}

    public static void main(String[] args) throws Exception {
        int spouts = 1;
        int bolts = 2;
        long keys = 1000;
        String name = "stateful-count";
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("expected name=value, got '" + arg + "'");
            }
            switch (kv[0]) {
                case "spouts" -> spouts = Integer.parseInt(kv[1]);
                case "bolts" -> bolts = Integer.parseInt(kv[1]);
                case "keys" -> keys = Long.parseLong(kv[1]);
                case "name" -> name = kv[1];
                default -> throw new IllegalArgumentException(
                        "unknown option '" + kv[0] + "' (spouts, bolts, keys, name)");
            }
        }
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be at least 1, not " + keys);
        }
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("spout", new ReplayableSpout(keys), spouts);
        builder.setBolt(COUNT, new CountBolt(), bolts).fieldsGrouping("spout", new Fields("key"));
        Config conf = new Config();
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }

    /** Emits (key, seq) with message id seq; a failed message is emitted again. */
    public static final class ReplayableSpout extends BaseRichSpout {
        private final long keys;
        private transient SpoutOutputCollector collector;
        private transient ArrayDeque<Long> replay;
        private transient Set<Long> pending;
        private transient long next;
        private transient long step;

        public ReplayableSpout(long keys) {
            this.keys = keys;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.replay = new ArrayDeque<>();
            this.pending = new HashSet<>();
            // Each task its own sequence: index, index + tasks, ...
            this.next = context.getThisTaskIndex();
            this.step = context.getComponentTasks(context.getThisComponentId()).size();
        }

        @Override
        public void nextTuple() {
            Long id = replay.poll();
            if (id == null) {
                id = next;
                next += step;
            }
            pending.add(id);
            collector.emit(new Values(id % keys, id), id);
        }

        @Override
        public void ack(Object msgId) {
            pending.remove(msgId);
        }

        @Override
        public void fail(Object msgId) {
            if (pending.remove(msgId)) {
                replay.add((Long) msgId);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "seq"));
        }
    }

    /** Counts tuples per key in its state; acked by Storm's stateful executor at the commit. */
    public static final class CountBolt extends BaseStatefulBolt<KeyValueState<Long, Long>> {
        private transient KeyValueState<Long, Long> counts;
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void initState(KeyValueState<Long, Long> state) {
            this.counts = state;
        }

        @Override
        public void execute(Tuple input) {
            long key = input.getLong(0);
            counts.put(key, counts.get(key, 0L) + 1);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }
}

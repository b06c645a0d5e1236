package dev.egret.bench;

import java.util.Map;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * The fixed-rate workload of {@code egret bench --rate}: a spout that offers
 * tuples at a set rate (not as fast as it can), acked by a bolt behind a
 * shuffle grouping, so that complete latency is measured at a load the
 * system keeps up with, as storm-loadgen's ThroughputVsLatency does.
 *
 * <p>Arguments: {@code RATE [name=value...]}, RATE the tuples per second of
 * the whole spout component; options {@code spouts=N} (default 1),
 * {@code bolts=N} (default 1), {@code name=TOPOLOGY} (default
 * {@code rate-RATE}).
 *
 * <p>Pacing: each spout task owns {@code RATE / spouts} tuples per second
 * and, at every {@code nextTuple}, emits the tuples due since it opened
 * (at most {@link RateSpout#MAX_BURST} per call; {@link Pacer}). When the system held it
 * back (max spout pending, backpressure) for more than one second, the
 * backlog beyond one second is dropped and counted rather than sent as a
 * burst: the offered rate never exceeds RATE by more than one second's worth.
 */
public final class RateTopology {
    private RateTopology() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: RateTopology RATE [spouts=N] [bolts=N] [name=NAME]");
        }
        long rate = Long.parseLong(args[0]);
        if (rate <= 0) {
            throw new IllegalArgumentException("RATE must be at least 1 tuple per second, not " + rate);
        }
        int spouts = 1;
        int bolts = 1;
        String name = "rate-" + rate;
        for (int i = 1; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("expected name=value, got '" + args[i] + "'");
            }
            switch (kv[0]) {
                case "spouts" -> spouts = Integer.parseInt(kv[1]);
                case "bolts" -> bolts = Integer.parseInt(kv[1]);
                case "name" -> name = kv[1];
                default -> throw new IllegalArgumentException("unknown option '" + kv[0] + "' (spouts, bolts, name)");
            }
        }
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("spout", new RateSpout(rate), spouts);
        builder.setBolt("ack", new AckBolt(), bolts).shuffleGrouping("spout");
        Config conf = new Config();
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }

    /**
     * What a spout task may emit now: the tuples due at {@code perSecond}
     * since {@code started}, less those emitted and dropped, a backlog above
     * one second dropped, at most {@code maxBurst} at once.
     */
    static final class Pacer {
        private final long perSecond;
        private final long started;
        private final int maxBurst;
        private long emitted;
        private long dropped;

        Pacer(long perSecond, long startedNanos, int maxBurst) {
            this.perSecond = perSecond;
            this.started = startedNanos;
            this.maxBurst = maxBurst;
        }

        /** The tuples due {@code elapsedNanos} after the start, without overflow for hours at millions per second. */
        static long due(long elapsedNanos, long perSecond) {
            long seconds = elapsedNanos / 1_000_000_000L;
            long rest = elapsedNanos % 1_000_000_000L;
            return seconds * perSecond + rest * perSecond / 1_000_000_000L;
        }

        /** How many to emit at {@code nowNanos}; counts them as emitted. */
        int take(long nowNanos) {
            long behind = due(nowNanos - started, perSecond) - emitted - dropped;
            if (behind > perSecond) {
                dropped += behind - perSecond;
                behind = perSecond;
            }
            int n = (int) Math.max(0, Math.min(behind, maxBurst));
            emitted += n;
            return n;
        }

        /**
         * When the tuple of number {@code index} (from 0, emitted and dropped alike, in order)
         * was due: the first instant at which {@link #due} counts it.
         */
        long dueNanos(long index) {
            long count = index + 1;
            long seconds = count / perSecond;
            long rest = count % perSecond;
            return started + seconds * 1_000_000_000L + (rest * 1_000_000_000L + perSecond - 1) / perSecond;
        }

        /** The number of the first of the {@code n} tuples the last {@link #take} gave. */
        long firstOfLast(int n) {
            return emitted + dropped - n;
        }

        long emitted() {
            return emitted;
        }

        long dropped() {
            return dropped;
        }
    }

    /**
     * Emits its share of the rate, each tuple with a message id (acking on): the
     * {@link System#nanoTime} at which the tuple was due. Its {@code ack} measures the complete
     * latency from then, in µs, as storm-loadgen's ThroughputVsLatency does (a spout that
     * emits late adds its delay), into {@link LatencyHook#recordCompleteMicros}.
     */
    public static final class RateSpout extends BaseRichSpout {
        /** The most tuples one {@code nextTuple} call emits. */
        static final int MAX_BURST = 1000;

        private final long rate;
        private transient SpoutOutputCollector collector;
        private transient Pacer pacer;
        private transient long next;
        private transient int task;

        public RateSpout(long rate) {
            this.rate = rate;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
            int tasks = context.getComponentTasks(context.getThisComponentId()).size();
            this.pacer = new Pacer(Math.max(1, rate / Math.max(1, tasks)), System.nanoTime(), MAX_BURST);
        }

        @Override
        public void nextTuple() {
            int n = pacer.take(System.nanoTime());
            long first = pacer.firstOfLast(n);
            for (int i = 0; i < n; i++) {
                collector.emit(new Values(next++), pacer.dueNanos(first + i));
            }
        }

        @Override
        public void ack(Object msgId) {
            if (msgId instanceof Long due) {
                LatencyHook.recordCompleteMicros(task, (System.nanoTime() - due) / 1000L);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("id"));
        }
    }

    /** Acks what it gets. */
    public static final class AckBolt extends BaseRichBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }
}

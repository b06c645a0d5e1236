package dev.egret.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.topology.base.BaseStatefulBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * A stateful word count over a fixed input, for the effectively-once test:
 * {@code sentences -> split (shuffle) -> count (fields on word, a stateful bolt)}.
 *
 * <p>The spout replays what it has not seen acked, as KafkaSpout does: sentence {@code i}
 * ({@link #words(int)}, for {@code i} in {@code 0..sentences-1} with {@code i % spoutTasks ==
 * taskIndex}) has message id {@code i} (a Long); {@code ack} appends the id to {@code
 * <out>/eo-acked-<taskIndex>.log}, {@code open} re-emits every own id not in that log, {@code
 * fail} re-queues the id. The count bolt keeps {@code word -> count} in its {@link KeyValueState}
 * and, at each commit ({@code preCommit}), writes the state it commits to {@code
 * <out>/eo-counts-<taskId>.txt} (written to a temporary name and renamed): a first line {@code
 * txid T}, then {@code word count} lines.
 *
 * <p>Arguments: {@code <topology name> <output dir> [key=value ..]} with keys {@code sentences}
 * (2000), {@code rate} (emits per second per spout task, 0 = unlimited; 0), {@code spouts} (2),
 * {@code workers} (3), {@code timeout} (topology.message.timeout.secs; 5), {@code pending}
 * (topology.max.spout.pending; 50), {@code interval} (topology.state.checkpoint.interval.ms;
 * 500), {@code eo} (1: topology.reliability.mode EFFECTIVELY_ONCE, 0: left unset), {@code slow}
 * (0; n > 0: a second spout, {@code slowwords}, one task, emits the first word of sentences
 * {@code 0..n-1} at 4 per second through a relay bolt, {@code slowrelay}, that takes {@code
 * delay} ms (150) per tuple, into the count bolt, which then aligns markers from the split
 * bolt's tasks and from the slow relay, whose markers come late; acked log {@code
 * <out>/eo-slow-acked-0.log}), {@code align} (egret.checkpoint.alignment.bytes; -1: left
 * unset), {@code full} (egret.checkpoint.full.every; 0: left unset).
 */
public final class EffectivelyOnceWordCountTopology {
    public static final String SPOUT = "sentences";
    public static final String SPLIT = "split";
    public static final String COUNT = "count";
    public static final String SLOW = "slowwords";
    public static final String SLOW_RELAY = "slowrelay";

    private EffectivelyOnceWordCountTopology() {}

    /** The words of sentence {@code i} (the test computes the same). */
    public static String[] words(int i) {
        String[] out = new String[1 + i % 4];
        for (int j = 0; j < out.length; j++) {
            out[j] = "w" + ((i * 31 + j * 17) % 53);
        }
        return out;
    }

    /** Replays every sentence of its own that it has not seen acked. */
    public static final class SentenceSpout extends BaseRichSpout {
        private final String outDir;
        private final int sentences;
        private final int rate;
        /** The acked log's prefix; with {@code firstWordOnly}, emits field "word": the first word only. */
        private final String log;
        private final boolean firstWordOnly;
        private transient SpoutOutputCollector collector;
        private transient String ackedLog;
        private transient ArrayDeque<Long> fresh;
        private transient ArrayDeque<Long> replay;
        private transient Set<Long> pending;
        private transient long nextEmitNanos;

        public SentenceSpout(String outDir, int sentences, int rate) {
            this(outDir, sentences, rate, "eo-acked-", false);
        }

        public SentenceSpout(String outDir, int sentences, int rate, String log, boolean firstWordOnly) {
            this.outDir = outDir;
            this.sentences = sentences;
            this.rate = rate;
            this.log = log;
            this.firstWordOnly = firstWordOnly;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            int index = context.getThisTaskIndex();
            int tasks = context.getComponentTasks(context.getThisComponentId()).size();
            this.ackedLog = log + index + ".log";
            Set<Long> acked = new HashSet<>();
            for (String line : SequenceTopology.readLog(outDir, ackedLog)) {
                try {
                    acked.add(Long.parseLong(line.trim()));
                } catch (NumberFormatException e) {
                    // a torn line: the id is replayed, its ack is logged again
                }
            }
            this.fresh = new ArrayDeque<>();
            this.replay = new ArrayDeque<>();
            this.pending = new HashSet<>();
            for (long i = index; i < sentences; i += tasks) {
                if (!acked.contains(i)) {
                    fresh.add(i);
                }
            }
            this.nextEmitNanos = System.nanoTime();
        }

        @Override
        public void nextTuple() {
            if (rate > 0 && System.nanoTime() < nextEmitNanos) {
                Recorder.idle();
                return;
            }
            Long id = replay.isEmpty() ? fresh.poll() : replay.poll();
            if (id == null) {
                Recorder.idle();
                return;
            }
            pending.add(id);
            String[] w = words(id.intValue());
            collector.emit(new Values(firstWordOnly ? w[0] : String.join(" ", w)), id);
            if (rate > 0) {
                nextEmitNanos = Math.max(nextEmitNanos, System.nanoTime()) + 1_000_000_000L / rate;
            }
        }

        @Override
        public void ack(Object msgId) {
            Long id = (Long) msgId;
            if (pending.remove(id)) {
                Recorder.append(outDir, ackedLog, String.valueOf(id));
            }
        }

        @Override
        public void fail(Object msgId) {
            Long id = (Long) msgId;
            if (pending.remove(id)) {
                replay.add(id);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields(firstWordOnly ? "word" : "sentence"));
        }
    }

    /** Splits a sentence into words. */
    public static final class SplitBolt extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            for (String w : input.getString(0).split(" ")) {
                collector.emit(new Values(w));
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    /** Passes a word on after {@code delayMs}: the slow path's markers wait behind its tuples. */
    public static final class SlowRelayBolt extends BaseBasicBolt {
        private final int delayMs;

        public SlowRelayBolt(int delayMs) {
            this.delayMs = delayMs;
        }

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            collector.emit(new Values(input.getString(0)));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    /** Counts words in its state; reports what it commits. */
    public static final class CountBolt extends BaseStatefulBolt<KeyValueState<String, Long>> {
        private final String outDir;
        private transient KeyValueState<String, Long> counts;
        private transient OutputCollector collector;
        private transient int taskId;

        public CountBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.taskId = context.getThisTaskId();
        }

        @Override
        public void initState(KeyValueState<String, Long> state) {
            this.counts = state;
        }

        @Override
        public void execute(Tuple input) {
            String w = input.getString(0);
            counts.put(w, counts.get(w, 0L) + 1);
            collector.ack(input);
        }

        @Override
        public void preCommit(long txid) {
            if (counts == null) {
                // A recovering COMMIT before INITSTATE: the state is not handed over yet.
                return;
            }
            Map<String, Long> sorted = new TreeMap<>();
            for (Map.Entry<String, Long> e : counts) {
                sorted.put(e.getKey(), e.getValue());
            }
            StringBuilder b = new StringBuilder("txid ").append(txid).append('\n');
            sorted.forEach((w, c) -> b.append(w).append(' ').append(c).append('\n'));
            Path target = Recorder.file(outDir, "eo-counts-" + taskId + ".txt");
            Path tmp = Recorder.file(outDir, "eo-counts-" + taskId + ".tmp");
            try {
                Files.writeString(tmp, b.toString(), StandardCharsets.UTF_8);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + target, e);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException(
                    "usage: EffectivelyOnceWordCountTopology <topology name> <output dir> [key=value ..]");
        }
        Map<String, Integer> o = new HashMap<>(Map.of("sentences", 2000, "rate", 0, "spouts", 2, "workers", 3,
                "timeout", 5, "pending", 50, "interval", 500, "eo", 1, "slow", 0));
        o.put("delay", 150);
        o.put("align", -1);
        o.put("full", 0);
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 0 || !o.containsKey(args[i].substring(0, eq))) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + o.keySet());
            }
            o.put(args[i].substring(0, eq), Integer.parseInt(args[i].substring(eq + 1)));
        }
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout(SPOUT, new SentenceSpout(args[1], o.get("sentences"), o.get("rate")), o.get("spouts"));
        builder.setBolt(SPLIT, new SplitBolt(), 2).shuffleGrouping(SPOUT);
        if (o.get("slow") > 0) {
            builder.setSpout(SLOW, new SentenceSpout(args[1], o.get("slow"), 4, "eo-slow-acked-", true), 1);
            builder.setBolt(SLOW_RELAY, new SlowRelayBolt(o.get("delay")), 1).shuffleGrouping(SLOW);
            builder.setBolt(COUNT, new CountBolt(args[1]), 2).fieldsGrouping(SPLIT, new Fields("word"))
                    .fieldsGrouping(SLOW_RELAY, new Fields("word"));
        } else {
            builder.setBolt(COUNT, new CountBolt(args[1]), 2).fieldsGrouping(SPLIT, new Fields("word"));
        }
        Config conf = new Config();
        conf.setNumWorkers(o.get("workers"));
        conf.setMessageTimeoutSecs(o.get("timeout"));
        conf.setMaxSpoutPending(o.get("pending"));
        conf.put(Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL, o.get("interval"));
        if (o.get("eo") == 1) {
            conf.put("topology.reliability.mode", "EFFECTIVELY_ONCE");
        }
        if (o.get("align") >= 0) {
            conf.put("egret.checkpoint.alignment.bytes", o.get("align"));
        }
        if (o.get("full") > 0) {
            conf.put("egret.checkpoint.full.every", o.get("full"));
        }
        StormSubmitter.submitTopology(args[0], conf, builder.createTopology());
    }
}

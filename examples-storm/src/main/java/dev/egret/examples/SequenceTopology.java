package dev.egret.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.TupleUtils;

/**
 * Per-key sequence numbers through a reliable (or deliberately unreliable) path, for the
 * delivery-guarantee tests: {@code spout -> relay (shuffle) -> sink (fields on key)}.
 *
 * <p>The spout owns keys {@code k} with {@code k % spoutTasks == taskIndex} and emits, for each,
 * {@code (key, seq)} for {@code seq = 0..seqs-1} with message id {@code "key:seq"}. Its progress is
 * durable, so a spout JVM killed with {@code -9} resumes its own keys when restarted:
 *
 * <ul>
 *   <li>at-least-once: every {@code ack(msgId)} appends the id to {@code
 *       <out>/spout-acked-<taskIndex>.log}; {@code open} re-emits every message of its keys not in
 *       that log; {@code fail(msgId)} re-queues the message (replayed before new ones).
 *   <li>at-most-once ({@code topology.acker.executors} 0): each id is appended to {@code
 *       <out>/spout-emitted-<taskIndex>.log} BEFORE it is emitted; {@code open} skips what is
 *       there, so nothing is ever emitted twice. Acks are still logged to the acked log.
 * </ul>
 *
 * <p>Also per spout task: {@code spout-fails-<i>.log} (one failed id per line), {@code
 * spout-maxpending-<i>.log} (a line each time the task's own pending count, emitted minus acked
 * minus failed, reaches a new maximum) and {@code spout-unexpected-<i>.log} (an ack or fail for an
 * id that was not pending: Storm never does that).
 *
 * <p>The relay pairs consecutive inputs and emits both values anchored to BOTH inputs
 * (multi-anchoring), then acks both; a tuple left alone is flushed, anchored to itself, on the next
 * tick (once a second). The sink is a {@link BaseBasicBolt} (acked by the framework) that appends
 * {@code "key seq"} per tuple to {@code <out>/sink-<taskId>.txt}.
 *
 * <p>Every log line is written with one append-mode {@code write}. A line cut by a crash (no
 * trailing newline) is closed with {@code "#torn"} when the spout reopens the file, so it never
 * parses as an id and never glues onto the next line.
 *
 * <p>Arguments: {@code <topology name> <output dir> <mode> [key=value ..]} with mode {@code
 * at-least-once} or {@code at-most-once} and keys: {@code keys} (20), {@code seqs} (200), {@code
 * rate} (emits per second per spout task, 0 = unlimited; 0), {@code pending}
 * (topology.max.spout.pending; 50), {@code timeout} (topology.message.timeout.secs; 5), {@code
 * spouts} (spout parallelism; 2), {@code workers} (3), {@code sinkdelay} (ms the sink sleeps per
 * tuple; 0), {@code sinktasks} (the sink's task count, for rebalancing its 2 executors; 0 = 2).
 */
public final class SequenceTopology {
    public static final String SPOUT = "spout";
    public static final String RELAY = "relay";
    public static final String SINK = "sink";

    /** A partial last line left by a crash is closed with this marker. */
    static final String TORN = "#torn";

    private SequenceTopology() {}

    static String msgId(int key, int seq) {
        return key + ":" + seq;
    }

    /**
     * Complete lines of {@code <dir>/<name>}; empty when it does not exist. A partial last line
     * is left out and closed with {@link #TORN} so later appends start on a fresh line.
     */
    static List<String> readLog(String dir, String name) {
        Path path = Recorder.file(dir, name);
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
        List<String> lines = new ArrayList<>(List.of(text.split("\n")));
        if (!text.isEmpty() && !text.endsWith("\n")) {
            lines.remove(lines.size() - 1);
            Recorder.append(dir, name, TORN);
        }
        lines.removeIf(String::isEmpty);
        return lines;
    }

    /** Emits (key, seq) with message id "key:seq" for its own keys; see the class docs. */
    public static final class SequenceSpout extends BaseRichSpout {
        private final String outDir;
        private final boolean atLeastOnce;
        private final int keys;
        private final int seqs;
        private final int rate;

        private transient SpoutOutputCollector collector;
        private transient int taskIndex;
        private transient ArrayDeque<String> fresh;
        private transient ArrayDeque<String> replay;
        private transient Set<String> pending;
        private transient Set<String> acked;
        private transient int maxPending;
        private transient long nextEmitNanos;

        public SequenceSpout(String outDir, boolean atLeastOnce, int keys, int seqs, int rate) {
            this.outDir = outDir;
            this.atLeastOnce = atLeastOnce;
            this.keys = keys;
            this.seqs = seqs;
            this.rate = rate;
        }

        private String log(String kind) {
            return "spout-" + kind + "-" + taskIndex + ".log";
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.taskIndex = context.getThisTaskIndex();
            int tasks = context.getComponentTasks(context.getThisComponentId()).size();
            this.pending = new HashSet<>();
            this.replay = new ArrayDeque<>();
            this.fresh = new ArrayDeque<>();
            this.acked = new HashSet<>(readLog(outDir, log("acked")));
            // Close torn lines of every log this task appends to, not only the one it reads.
            readLog(outDir, log("fails"));
            readLog(outDir, log("maxpending"));
            Set<String> done = atLeastOnce ? acked : new HashSet<>(readLog(outDir, log("emitted")));
            // Sequence-major order: every key advances together, so a fault hits all keys.
            for (int seq = 0; seq < seqs; seq++) {
                for (int key = taskIndex; key < keys; key += tasks) {
                    String id = msgId(key, seq);
                    if (!done.contains(id)) {
                        fresh.add(id);
                    }
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
            String id = replay.isEmpty() ? fresh.poll() : replay.poll();
            if (id == null) {
                Recorder.idle();
                return;
            }
            int colon = id.indexOf(':');
            int key = Integer.parseInt(id.substring(0, colon));
            int seq = Integer.parseInt(id.substring(colon + 1));
            if (!atLeastOnce) {
                // Logged before the emit: a crash right after never re-emits it.
                Recorder.append(outDir, log("emitted"), id);
            }
            pending.add(id);
            collector.emit(new Values(key, seq), id);
            if (pending.size() > maxPending) {
                maxPending = pending.size();
                Recorder.append(outDir, log("maxpending"), String.valueOf(maxPending));
            }
            if (rate > 0) {
                nextEmitNanos = Math.max(nextEmitNanos, System.nanoTime()) + 1_000_000_000L / rate;
            }
        }

        @Override
        public void ack(Object msgId) {
            String id = String.valueOf(msgId);
            if (!pending.remove(id)) {
                Recorder.append(outDir, log("unexpected"), "ack " + id);
            }
            acked.add(id);
            Recorder.append(outDir, log("acked"), id);
        }

        @Override
        public void fail(Object msgId) {
            String id = String.valueOf(msgId);
            if (!pending.remove(id)) {
                Recorder.append(outDir, log("unexpected"), "fail " + id);
            }
            Recorder.append(outDir, log("fails"), id);
            if (atLeastOnce && !acked.contains(id)) {
                replay.add(id);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "seq"));
        }
    }

    /** Pairs inputs and emits both values anchored to both inputs; flushes a lone one on ticks. */
    public static final class RelayBolt extends BaseRichBolt {
        private transient OutputCollector collector;
        private transient Tuple held;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        private static Values values(Tuple t) {
            return new Values(t.getIntegerByField("key"), t.getIntegerByField("seq"));
        }

        @Override
        public void execute(Tuple input) {
            if (TupleUtils.isTick(input)) {
                if (held != null) {
                    collector.emit(held, values(held));
                    collector.ack(held);
                    held = null;
                }
                return;
            }
            if (held == null) {
                held = input;
                return;
            }
            List<Tuple> anchors = List.of(held, input);
            collector.emit(anchors, values(held));
            collector.emit(anchors, values(input));
            collector.ack(held);
            collector.ack(input);
            held = null;
        }

        @Override
        public Map<String, Object> getComponentConfiguration() {
            Map<String, Object> conf = new HashMap<>();
            conf.put(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS, 1);
            return conf;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "seq"));
        }
    }

    /** Records "key seq" per tuple; acked by the basic-bolt executor after execute returns. */
    public static final class SinkBolt extends BaseBasicBolt {
        private final String outDir;
        private final int delayMs;
        private transient String file;

        public SinkBolt(String outDir, int delayMs) {
            this.outDir = outDir;
            this.delayMs = delayMs;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            this.file = "sink-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            if (delayMs > 0) {
                try {
                    Thread.sleep(delayMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Recorder.append(
                    outDir, file, input.getIntegerByField("key") + " " + input.getIntegerByField("seq"));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    static Map<String, Integer> options(String[] args, int from) {
        Map<String, Integer> opts = new HashMap<>();
        opts.put("keys", 20);
        opts.put("seqs", 200);
        opts.put("rate", 0);
        opts.put("pending", 50);
        opts.put("timeout", 5);
        opts.put("spouts", 2);
        opts.put("workers", 3);
        opts.put("sinkdelay", 0);
        opts.put("sinktasks", 0);
        for (int i = from; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            String key = eq < 0 ? args[i] : args[i].substring(0, eq);
            if (eq < 0 || !opts.containsKey(key)) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
            }
            opts.put(key, Integer.parseInt(args[i].substring(eq + 1)));
        }
        return opts;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            throw new IllegalArgumentException(
                    "usage: SequenceTopology <topology name> <output dir> at-least-once|at-most-once [key=value ..]");
        }
        String name = args[0];
        String out = args[1];
        boolean atLeastOnce = switch (args[2]) {
            case "at-least-once" -> true;
            case "at-most-once" -> false;
            default -> throw new IllegalArgumentException("mode must be at-least-once or at-most-once: " + args[2]);
        };
        Map<String, Integer> o = options(args, 3);

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout(
                SPOUT,
                new SequenceSpout(out, atLeastOnce, o.get("keys"), o.get("seqs"), o.get("rate")),
                o.get("spouts"));
        builder.setBolt(RELAY, new RelayBolt(), 2).shuffleGrouping(SPOUT);
        builder.setBolt(SINK, new SinkBolt(out, o.get("sinkdelay")), 2)
                .setNumTasks(o.get("sinktasks") > 0 ? o.get("sinktasks") : 2)
                .fieldsGrouping(RELAY, new Fields("key"));

        Config conf = new Config();
        conf.setNumWorkers(o.get("workers"));
        conf.setMessageTimeoutSecs(o.get("timeout"));
        conf.setMaxSpoutPending(o.get("pending"));
        if (!atLeastOnce) {
            conf.setNumAckers(0);
        }
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }
}

package dev.egret.examples.java25;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
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
 * A word count written with Java 21+ language features (records, record
 * patterns in switch, sequenced collections) and compiled for Java 25.
 *
 * <p>{@code lines} emits {@link #TOTAL} lines, cycling over {@link #LINES};
 * {@code split} splits them; {@code count} (2 tasks, fields grouping) appends
 * {@code "<word> <count>"} to {@code <out>/count-<task>.txt} after each word
 * and {@code "runtime <feature release>"} to {@code <out>/runtime-<task>.txt}
 * when it starts, so the test can tell which Java ran it.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class RecordWordCount {
    /** The end-to-end test holds the same list. */
    public static final List<String> LINES = List.of(
            "records are here", "patterns match records", "here and there");

    /** How many lines the spout emits in all. */
    public static final int TOTAL = 30;

    private RecordWordCount() {}

    /** A line of input: a record, unpacked by a record pattern in the bolt. */
    record Line(int index, String text) {}

    static void append(String dir, String name, String line) {
        Path path = Path.of(dir, name);
        try {
            Files.createDirectories(path.getParent());
            Files.write(path, (line + "\n").getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record into " + path, e);
        }
    }

    public static final class LineSpout extends BaseRichSpout {
        private SpoutOutputCollector collector;
        private int emitted;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            if (emitted >= TOTAL) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            Line line = new Line(emitted, LINES.get(emitted % LINES.size()));
            collector.emit(new Values(line.index(), line.text()));
            emitted++;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("index", "text"));
        }
    }

    public static final class SplitBolt extends BaseRichBolt {
        private OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            Object line = new Line(input.getIntegerByField("index"), input.getStringByField("text"));
            switch (line) {
                case Line(int index, String text) when !text.isBlank() -> {
                    for (String word : text.split(" ")) {
                        collector.emit(input, new Values(word));
                    }
                }
                default -> { }
            }
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    public static final class CountBolt extends BaseRichBolt {
        private final String outDir;
        private transient Map<String, Integer> counts;
        private transient String file;
        private transient OutputCollector collector;

        public CountBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.counts = new HashMap<>();
            this.file = "count-" + context.getThisTaskId() + ".txt";
            append(outDir, "runtime-" + context.getThisTaskId() + ".txt",
                    "runtime " + Runtime.version().feature());
        }

        @Override
        public void execute(Tuple input) {
            String word = input.getStringByField("word");
            int count = counts.merge(word, 1, Integer::sum);
            append(outDir, file, word + " " + count);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: RecordWordCount <topology name> <output dir>");
        }
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("lines", new LineSpout(), 1);
        builder.setBolt("split", new SplitBolt(), 1).shuffleGrouping("lines");
        builder.setBolt("count", new CountBolt(args[1]), 2).fieldsGrouping("split", new Fields("word"));
        Config conf = new Config();
        conf.setNumWorkers(2);
        StormSubmitter.submitTopology(List.of(args).getFirst(), conf, builder.createTopology());
    }
}

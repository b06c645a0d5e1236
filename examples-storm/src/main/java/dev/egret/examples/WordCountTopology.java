package dev.egret.examples;

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
 * The classic word count over a finite, deterministic input.
 *
 * <p>{@code sentences} (1 task) emits {@link #TOTAL} sentences, cycling over
 * {@link #SENTENCES}, once; {@code split} (2 executors, shuffle) splits them on
 * spaces; {@code count} (3 executors, fields grouping on "word") counts. Each
 * count task appends {@code "<word> <count>"} to {@code <out>/count-<taskId>.txt}
 * after every tuple, so the last line per word is its final count. Runs on 2
 * workers so that tuples cross stream managers.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class WordCountTopology {
    /** The distinct sentences; the end-to-end test holds the same list. */
    public static final List<String> SENTENCES = List.of(
            "the cow jumped over the moon",
            "an apple a day keeps the doctor away",
            "four score and seven years ago",
            "snow white and the seven dwarfs",
            "i am at two with nature",
            "the quick brown fox jumps over the lazy dog",
            "to be or not to be",
            "all that glitters is not gold",
            "a stitch in time saves nine",
            "the early bird catches the worm");

    /** How many sentences the spout emits in all. */
    public static final int TOTAL = 200;

    private WordCountTopology() {}

    /** Emits {@link #TOTAL} sentences once, then idles. */
    public static final class SentenceSpout extends BaseRichSpout {
        private SpoutOutputCollector collector;
        private int emitted;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            if (emitted >= TOTAL) {
                Recorder.idle();
                return;
            }
            collector.emit(new Values(SENTENCES.get(emitted % SENTENCES.size())));
            emitted++;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("sentence"));
        }
    }

    /** Splits a sentence into words. */
    public static final class SplitBolt extends BaseRichBolt {
        private OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            for (String word : input.getStringByField("sentence").split(" ")) {
                if (!word.isEmpty()) {
                    collector.emit(input, new Values(word));
                }
            }
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    /** Counts words and records each new count. */
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
            this.file = context.getThisComponentId() + "-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void execute(Tuple input) {
            String word = input.getStringByField("word");
            int count = counts.merge(word, 1, Integer::sum);
            Recorder.append(outDir, file, word + " " + count);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "WordCountTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("sentences", new SentenceSpout(), 1);
        builder.setBolt("split", new SplitBolt(), 2).shuffleGrouping("sentences");
        builder.setBolt("count", new CountBolt(nameDir[1]), 3).fieldsGrouping("split", new Fields("word"));

        Config conf = new Config();
        conf.setNumWorkers(2);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.createTopology());
    }
}

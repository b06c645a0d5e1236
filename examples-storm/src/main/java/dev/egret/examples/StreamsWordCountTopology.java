package dev.egret.examples;

import java.util.Arrays;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.shade.com.google.common.collect.ImmutableList;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.streams.Pair;
import org.apache.storm.streams.StreamBuilder;
import org.apache.storm.streams.windowing.TumblingWindows;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * The word count of {@link WordCountTopology}'s sentences, written with Storm's Streams
 * API: {@code StreamBuilder.newStream} from a spout emitting {@link #TOTAL} sentences once
 * (each with a message id; acked ids are recorded in {@code <out>/streams-acked.txt}),
 * {@code repartition(2)}, {@code flatMap} into words, {@code mapToPair} to
 * {@code (word, 1)}, a 2 s tumbling {@code window}, {@code countByKey} on 2 tasks, and
 * {@code to} a bolt of ours that appends {@code "<word> <count>"} for each window's count to
 * {@code <out>/streams-counts.txt}. The counts of all windows of a word add up to its
 * number of occurrences.
 *
 * <p>The sentences are a Guava {@code ImmutableList} of storm-shaded-deps
 * ({@code org.apache.storm.shade.com.google.common}), which Storm puts on every worker's
 * classpath: a user jar may import it without shipping it.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class StreamsWordCountTopology {
    static final ImmutableList<String> SENTENCES = ImmutableList.copyOf(WordCountTopology.SENTENCES);
    static final int TOTAL = WordCountTopology.TOTAL;

    private StreamsWordCountTopology() {}

    /** Emits {@link #TOTAL} sentences once, each with its index as message id; records the acks. */
    public static final class SentenceSpout extends BaseRichSpout {
        private final String outDir;
        private transient SpoutOutputCollector collector;
        private int emitted;

        public SentenceSpout(String outDir) {
            this.outDir = outDir;
        }

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
            collector.emit(new Values(SENTENCES.get(emitted % SENTENCES.size())), emitted);
            emitted++;
        }

        @Override
        public void ack(Object msgId) {
            Recorder.append(outDir, "streams-acked.txt", String.valueOf(msgId));
        }

        @Override
        public void fail(Object msgId) {
            Recorder.append(outDir, "streams-failed.txt", String.valueOf(msgId));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("sentence"));
        }
    }

    /** Records each count it is given: the stream's key and value fields. */
    public static final class RecordCounts extends BaseBasicBolt {
        private final String outDir;

        public RecordCounts(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            Recorder.append(outDir, "streams-counts.txt",
                    input.getStringByField("key") + " " + input.getLongByField("value"));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "StreamsWordCountTopology");
        StreamBuilder builder = new StreamBuilder();
        builder.newStream(new SentenceSpout(nameDir[1]), 1)
                .repartition(2)
                .flatMap(sentence -> Arrays.asList(sentence.getStringByField("sentence").split(" ")))
                .mapToPair(word -> Pair.of(word, 1))
                .window(TumblingWindows.of(Duration.seconds(2)))
                .countByKey()
                .to(new RecordCounts(nameDir[1]));
        Config conf = new Config();
        conf.setNumWorkers(2);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.build());
    }
}

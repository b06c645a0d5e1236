package dev.egret.examples;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * Every component a lambda (Storm's {@code TopologyBuilder} lambda overloads): a
 * {@code SerializableSupplier} spout emitting {@value #EMITS} words, cycling through
 * {@link #WORDS} (then nothing); a {@code SerializableBiConsumer} bolt pairing each word
 * with 1; a {@code SerializableBiConsumer} bolt counting per word (fields grouping, its
 * map captured by the lambda, one copy per task); a {@code SerializableConsumer} sink
 * appending {@code "<word> <count>"} to {@code <out>/lambda-counts.txt}.
 *
 * <p>Each lambda captures values (the counter, the map, the output dir), so its
 * {@code SerializedLambda} resolves through this class in the user's jar.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class LambdaTopology {
    static final String[] WORDS = {"apple", "banana", "cherry", "date", "elder"};
    static final int EMITS = 500;

    private LambdaTopology() {}

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "LambdaTopology");
        String outDir = nameDir[1];
        String[] words = WORDS.clone();
        int emits = EMITS;
        AtomicInteger next = new AtomicInteger();
        Map<String, Integer> counts = new HashMap<>();

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", () -> {
            int i = next.getAndIncrement();
            if (i >= emits) {
                Recorder.idle();
                return null;
            }
            return words[i % words.length];
        }, 1);
        builder.setBolt("pair", (tuple, collector) -> collector.emit(new Values(tuple.getString(0), 1)),
                2, "word", "one").shuffleGrouping("words");
        builder.setBolt("count", (tuple, collector) -> {
            String word = tuple.getStringByField("word");
            int count = counts.merge(word, tuple.getIntegerByField("one"), Integer::sum);
            collector.emit(new Values(word, count));
        }, 2, "word", "count").fieldsGrouping("pair", new Fields("word"));
        builder.setBolt("sink", tuple -> Recorder.append(outDir, "lambda-counts.txt",
                tuple.getString(0) + " " + tuple.getInteger(1)), 1).globalGrouping("count");
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

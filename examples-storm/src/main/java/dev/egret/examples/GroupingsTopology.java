package dev.egret.examples;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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
 * One spout feeding four sinks, one per grouping under test.
 *
 * <ul>
 *   <li>{@code all-sink}: all grouping, 3 tasks on 2 executors: every task sees every value.
 *   <li>{@code global-sink}: global grouping, 3 tasks on 2 executors: only the lowest task id
 *       sees anything.
 *   <li>{@code direct-sink}: direct grouping on the spout's direct stream {@code "direct"}, 3
 *       tasks on 2 executors: the spout picks the task of value i as
 *       {@code getComponentTasks("direct-sink").get(i % 3)}, and sends that id along.
 *   <li>{@code multi-sink}: shuffle grouping, 4 tasks on 2 executors (executors hosting
 *       several tasks): 4 distinct task ids must record.
 * </ul>
 *
 * <p>The spout emits the values {@code 0..}{@link #COUNT}{@code -1} once on each stream.
 * Every sink task writes, in prepare, {@code <out>/context-<component>-<taskId>.txt} with
 * one line {@code "<taskId> <taskIndex> <comma-separated component tasks>"}, and appends
 * per tuple to {@code <out>/<component>-<taskId>.txt} the line {@code "<value>"}, or for
 * {@code direct-sink} {@code "<value> <intended task>"}. The spout records the task list
 * it saw for direct-sink in {@code <out>/spout-direct-tasks.txt}.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class GroupingsTopology {
    /** Number of values the spout emits on each stream. */
    public static final int COUNT = 12;

    public static final String DIRECT_STREAM = "direct";

    private GroupingsTopology() {}

    static String join(List<Integer> tasks) {
        return tasks.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Emits 0..COUNT-1 on the default stream and, directly addressed, on "direct". */
    public static final class NumberSpout extends BaseRichSpout {
        private final String outDir;
        private transient SpoutOutputCollector collector;
        private transient List<Integer> directTasks;
        private int next;

        public NumberSpout(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.directTasks = context.getComponentTasks("direct-sink");
            Recorder.append(outDir, "spout-direct-tasks.txt", join(directTasks));
        }

        @Override
        public void nextTuple() {
            if (next >= COUNT) {
                Recorder.idle();
                return;
            }
            int value = next++;
            collector.emit(new Values(value));
            int target = directTasks.get(value % directTasks.size());
            collector.emitDirect(target, DIRECT_STREAM, new Values(value, target));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("value"));
            declarer.declareStream(DIRECT_STREAM, true, new Fields("value", "target"));
        }
    }

    /** Records its task context once and every tuple it receives. */
    public static final class RecordingBolt extends BaseRichBolt {
        private final String outDir;
        private transient OutputCollector collector;
        private transient String file;

        public RecordingBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            String component = context.getThisComponentId();
            int task = context.getThisTaskId();
            this.file = component + "-" + task + ".txt";
            Recorder.append(
                    outDir,
                    "context-" + component + "-" + task + ".txt",
                    task + " " + context.getThisTaskIndex() + " " + join(context.getComponentTasks(component)));
        }

        @Override
        public void execute(Tuple input) {
            String line = input.size() > 1
                    ? input.getInteger(0) + " " + input.getInteger(1)
                    : String.valueOf(input.getInteger(0));
            Recorder.append(outDir, file, line);
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "GroupingsTopology");
        String out = nameDir[1];
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new NumberSpout(out), 1);
        builder.setBolt("all-sink", new RecordingBolt(out), 2).setNumTasks(3).allGrouping("source");
        builder.setBolt("global-sink", new RecordingBolt(out), 2).setNumTasks(3).globalGrouping("source");
        builder.setBolt("direct-sink", new RecordingBolt(out), 2)
                .setNumTasks(3)
                .directGrouping("source", DIRECT_STREAM);
        builder.setBolt("multi-sink", new RecordingBolt(out), 2).setNumTasks(4).shuffleGrouping("source");

        Config conf = new Config();
        conf.setNumWorkers(2);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.createTopology());
    }
}

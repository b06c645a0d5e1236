package dev.egret.examples;

import java.util.HashMap;
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
import org.apache.storm.utils.TupleUtils;

/**
 * A bolt asking for a tick tuple every second through its component configuration.
 *
 * <p>{@code ticker} appends, per tick, {@code "<System.currentTimeMillis()>"} to
 * {@code <out>/ticks-<taskId>.txt}; any other tuple goes to
 * {@code <out>/other-<taskId>.txt} (the spout emits nothing, so that file should not
 * exist).
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class TickTopology {
    private TickTopology() {}

    /** A spout with nothing to say: a topology needs one. */
    public static final class SilentSpout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {}

        @Override
        public void nextTuple() {
            Recorder.idle();
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("nothing"));
        }
    }

    /** Records the arrival time of each tick. */
    public static final class TickBolt extends BaseRichBolt {
        private final String outDir;
        private transient OutputCollector collector;
        private transient int task;

        public TickBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
        }

        @Override
        public void execute(Tuple input) {
            String kind = TupleUtils.isTick(input) ? "ticks" : "other";
            Recorder.append(outDir, kind + "-" + task + ".txt", String.valueOf(System.currentTimeMillis()));
            collector.ack(input);
        }

        @Override
        public Map<String, Object> getComponentConfiguration() {
            Map<String, Object> conf = new HashMap<>();
            conf.put(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS, 1);
            return conf;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "TickTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("silent", new SilentSpout(), 1);
        builder.setBolt("ticker", new TickBolt(nameDir[1]), 1).shuffleGrouping("silent");
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

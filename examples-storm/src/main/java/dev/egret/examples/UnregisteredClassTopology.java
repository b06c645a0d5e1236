package dev.egret.examples;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * A spout emitting a value of a class not registered with Kryo
 * ({@link UnregisteredPayload}) with the Java-serialization fallback off, toward a bolt
 * in another executor: the submission succeeds, and the emit fails at run time with an
 * error naming the class (in the spout instance's log), as in Storm. Two workers: with one,
 * Storm would pass the tuple by reference and so would never need the registration (Egret
 * then serializes unregistered classes by name instead of failing).
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class UnregisteredClassTopology {
    private UnregisteredClassTopology() {}

    /** Emits one {@link UnregisteredPayload} per nextTuple call, every 200 ms. */
    public static final class PayloadSpout extends BaseRichSpout {
        private transient SpoutOutputCollector collector;
        private int next;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            collector.emit(new Values(new UnregisteredPayload(next, next)));
            next++;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("payload"));
        }
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "UnregisteredClassTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("payloads", new PayloadSpout(), 1);
        builder.setBolt("sink", new Parts.DropBolt(), 1).shuffleGrouping("payloads");

        Config conf = new Config();
        conf.setFallBackOnJavaSerialization(false);
        conf.setNumWorkers(2);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.createTopology());
    }
}

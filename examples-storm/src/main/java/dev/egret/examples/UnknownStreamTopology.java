package dev.egret.examples;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.topology.TopologyBuilder;

/**
 * A bolt subscribing to a stream ({@value #MISSING}) its source never declared: the
 * submission must be refused with a message naming it.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class UnknownStreamTopology {
    public static final String MISSING = "no-such-stream";

    private UnknownStreamTopology() {}

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "UnknownStreamTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new Parts.OneWordSpout(), 1);
        builder.setBolt("sink", new Parts.DropBolt(), 1).shuffleGrouping("words", MISSING);
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

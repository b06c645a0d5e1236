package dev.egret.examples;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.topology.TopologyBuilder;

/**
 * A bolt subscribing to a component that does not exist ({@value #MISSING}): the
 * submission must be refused with a message naming it.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class UnknownComponentTopology {
    public static final String MISSING = "no-such-spout";

    private UnknownComponentTopology() {}

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "UnknownComponentTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new Parts.OneWordSpout(), 1);
        builder.setBolt("sink", new Parts.DropBolt(), 1).shuffleGrouping(MISSING);
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

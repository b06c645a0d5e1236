package dev.egret.examples;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.topology.TopologyBuilder;

/**
 * A bolt holding a non-serializable field ({@link NotSerializableThing}) set before
 * the topology is built: building or submitting must fail with a message naming the
 * class.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class NotSerializableBoltTopology {
    private NotSerializableBoltTopology() {}

    /** Holds a field Java serialization cannot write. */
    public static final class HoldingBolt extends Parts.DropBolt {
        @SuppressWarnings("unused")
        private final NotSerializableThing thing = new NotSerializableThing("not serializable");
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "NotSerializableBoltTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new Parts.OneWordSpout(), 1);
        builder.setBolt("holder", new HoldingBolt(), 1).shuffleGrouping("words");
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

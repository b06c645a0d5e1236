package org.apache.storm.topology;

import java.util.Map;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;

/**
 * A bolt whose emits are anchored to the input and whose input is acked after
 * {@code execute} returns (see {@link BasicBoltExecutor}).
 */
public interface IBasicBolt extends IComponent {
    void prepare(Map<String, Object> topoConf, TopologyContext context);

    void execute(Tuple input, BasicOutputCollector collector);

    void cleanup();
}

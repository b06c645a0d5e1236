package org.apache.storm.task;

import java.io.Serializable;
import java.util.Map;
import org.apache.storm.tuple.Tuple;

/** A tuple processor: {@code prepare} once per task, then {@code execute} per input tuple. */
public interface IBolt extends Serializable {
    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector);

    void execute(Tuple input);

    void cleanup();
}

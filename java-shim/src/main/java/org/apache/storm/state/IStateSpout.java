package org.apache.storm.state;

import java.io.Serializable;
import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * Storm's state spout interface. Storm declares it but no executor of Storm runs state spouts
 * (its collectors refuse every call), and neither does Egret: it is here so code that names it links.
 */
public interface IStateSpout extends Serializable {
    void open(Map<String, Object> conf, TopologyContext context);

    void close();

    void nextTuple(StateSpoutOutputCollector collector);

    void synchronize(SynchronizeOutputCollector collector);
}

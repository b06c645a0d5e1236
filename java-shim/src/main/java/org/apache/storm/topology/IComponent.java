package org.apache.storm.topology;

import java.io.Serializable;
import java.util.Map;

/** What every spout and bolt declares: its output streams and its component-level config. */
public interface IComponent extends Serializable {
    void declareOutputFields(OutputFieldsDeclarer declarer);

    Map<String, Object> getComponentConfiguration();
}

package org.apache.storm.topology.base;

import java.util.Map;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IBasicBolt;

/** A basic bolt with empty prepare and cleanup. */
public abstract class BaseBasicBolt extends BaseComponent implements IBasicBolt {
    public BaseBasicBolt() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context) {
    }

    @Override
    public void cleanup() {
    }
}

package org.apache.storm.testing;

import java.util.Map;
import org.apache.storm.metric.api.rpc.CountShellMetric;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.ShellBolt;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.topology.OutputFieldsDeclarer;

/**
 * A shell bolt (the given command, e.g. {@code python3 bolt.py}) with a shell metric
 * {@code my-custom-shell-metric} (a count, 5 s buckets) that its script updates over RPC.
 */
public class PythonShellMetricsBolt extends ShellBolt implements IRichBolt {
    private static final long serialVersionUID = 1L;

    public PythonShellMetricsBolt(String[] command) {
        super(command);
    }

    public PythonShellMetricsBolt(String command, String file) {
        super(command, file);
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        super.prepare(topoConf, context, collector);
        context.registerMetric("my-custom-shell-metric", new CountShellMetric(), 5);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return null;
    }
}

package org.apache.storm.testing;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/**
 * A spout for planning and scheduling tests: emits nothing (each {@code nextTuple} sleeps
 * 100 ms); not distributed means a component config of {@code topology.max.task.parallelism: 1}.
 */
public class TestPlannerSpout extends BaseRichSpout {
    private static final long serialVersionUID = 1L;
    private final boolean isDistributed;
    private final Fields outFields;

    public TestPlannerSpout(Fields outFields, boolean isDistributed) {
        this.isDistributed = isDistributed;
        this.outFields = outFields;
    }

    public TestPlannerSpout(boolean isDistributed) {
        this(new Fields("field1", "field2"), isDistributed);
    }

    public TestPlannerSpout(Fields outFields) {
        this(outFields, true);
    }

    public Fields getOutputFields() {
        return outFields;
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
    }

    @Override
    public void close() {
    }

    @Override
    public void nextTuple() {
        Utils.sleep(100);
    }

    @Override
    public void ack(Object msgId) {
    }

    @Override
    public void fail(Object msgId) {
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(getOutputFields());
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        Map<String, Object> ret = new HashMap<>();
        if (!isDistributed) {
            ret.put(Config.TOPOLOGY_MAX_TASK_PARALLELISM, 1);
        }
        return ret;
    }
}

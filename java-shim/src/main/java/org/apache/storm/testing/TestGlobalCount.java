package org.apache.storm.testing;

import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Counts every tuple it gets and emits the running count, anchored, then acks. */
public class TestGlobalCount extends BaseRichBolt {
    public static Logger LOG = LoggerFactory.getLogger(TestGlobalCount.class);

    OutputCollector collector;
    private int count;

    public TestGlobalCount() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.count = 0;
    }

    @Override
    public void execute(Tuple input) {
        count++;
        collector.emit(input, new Values(count));
        collector.ack(input);
    }

    @Override
    public void cleanup() {
    }

    public Fields getOutputFields() {
        return new Fields("global-count");
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("global-count"));
    }
}

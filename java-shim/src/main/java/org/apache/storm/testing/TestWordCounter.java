package org.apache.storm.testing;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Counts the words in field 0 of its input and emits (word, count) after each. */
public class TestWordCounter extends BaseBasicBolt {
    public static Logger LOG = LoggerFactory.getLogger(TestWordCounter.class);

    Map<String, Integer> counts;

    public TestWordCounter() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context) {
        counts = new HashMap<>();
    }

    protected String getTupleValue(Tuple t, int idx) {
        return (String) t.getValues().get(idx);
    }

    @Override
    public void execute(Tuple input, BasicOutputCollector collector) {
        String word = getTupleValue(input, 0);
        int count = counts.getOrDefault(word, 0) + 1;
        counts.put(word, count);
        collector.emit(Utils.tuple(word, count));
    }

    @Override
    public void cleanup() {
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("word", "count"));
    }
}

package org.apache.storm.testing;

import java.util.Map;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * For each input, a config key (field 0), emits the key and its value in the config the bolt
 * was prepared with ({@code conf}, {@code value}); the constructor's map is its component config.
 */
public class TestConfBolt extends BaseBasicBolt {
    private static final long serialVersionUID = 1L;
    private final Map<String, Object> componentConf;
    private transient Map<String, Object> conf;

    public TestConfBolt() {
        this(null);
    }

    public TestConfBolt(Map<String, Object> componentConf) {
        this.componentConf = componentConf;
    }

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context) {
        this.conf = conf;
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("conf", "value"));
    }

    @Override
    public void execute(Tuple input, BasicOutputCollector collector) {
        String name = input.getString(0);
        collector.emit(new Values(name, conf.get(name)));
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return componentConf;
    }
}

package org.apache.storm.testing;

import java.util.HashMap;
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

/**
 * Checks that each source's event ids (inputs {@code (source, eventId)}, as
 * {@link TestEventLogSpout} emits them) arrive in strictly increasing order; emits an
 * {@code error} tuple, anchored to the input, for each that does not. Acks every input.
 */
public class TestEventOrderCheckBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    public static Logger LOG = LoggerFactory.getLogger(TestEventOrderCheckBolt.class);

    private final Map<Integer, Long> recentEventId = new HashMap<>();
    private transient OutputCollector collector;

    public TestEventOrderCheckBolt() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
    }

    @Override
    public void execute(Tuple input) {
        Integer sourceId = input.getInteger(0);
        Long eventId = input.getLong(1);
        Long recent = recentEventId.get(sourceId);
        if (recent != null && eventId <= recent) {
            String error = "Error: event id is not in strict order! event source Id: " + sourceId
                    + ", last event Id: " + recent + ", current event Id: " + eventId;
            collector.emit(input, new Values(error));
        }
        recentEventId.put(sourceId, eventId);
        collector.ack(input);
    }

    @Override
    public void cleanup() {
    }

    public Fields getOutputFields() {
        return new Fields("error");
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("error"));
    }
}

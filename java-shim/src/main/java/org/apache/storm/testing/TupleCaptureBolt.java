package org.apache.storm.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.tuple.Tuple;

/**
 * Records every tuple it receives (source component to its tuples, with their streams) and
 * acks it. The record lives in a process-wide table under this bolt's id, so the test that
 * built the topology reads it with {@link #getResults()} when the topology runs in its JVM.
 */
public class TupleCaptureBolt implements IRichBolt {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Map<String, List<FixedTuple>>> EMITTED = new ConcurrentHashMap<>();

    private final String name;
    private transient OutputCollector collector;

    public TupleCaptureBolt() {
        name = UUID.randomUUID().toString();
        EMITTED.put(name, new ConcurrentHashMap<>());
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
    }

    @Override
    public void execute(Tuple input) {
        String component = input.getSourceComponent();
        FixedTuple captured = new FixedTuple(input.getSourceStreamId(), input.getValues());
        EMITTED.computeIfAbsent(name, k -> new ConcurrentHashMap<>()).compute(component, (k, list) -> {
            List<FixedTuple> l = list == null ? new ArrayList<>() : list;
            l.add(captured);
            return l;
        });
        collector.ack(input);
    }

    /** Source component to the tuples received from it (the live record). */
    public Map<String, List<FixedTuple>> getResults() {
        return EMITTED.get(name);
    }

    @Override
    public void cleanup() {
    }

    /** The record, which is then forgotten (later tuples are not recorded). */
    public Map<String, List<FixedTuple>> getAndRemoveResults() {
        return EMITTED.remove(name);
    }

    /** A copy of the record, which then starts over empty. */
    public Map<String, List<FixedTuple>> getAndClearResults() {
        Map<String, List<FixedTuple>> live = EMITTED.get(name);
        if (live == null) {
            return new HashMap<>();
        }
        Map<String, List<FixedTuple>> ret = new HashMap<>(live);
        live.clear();
        return ret;
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return null;
    }
}

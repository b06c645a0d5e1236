package dev.egret.examples.flux;

import java.util.List;
import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseWindowedBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.windowing.TupleWindow;

/**
 * Sums each window; emits {@code (first, last, size, sum)} so the output can be
 * checked: a window of consecutive numbers first..last sums to a known value.
 */
public final class WindowSumBolt extends BaseWindowedBolt {
    private OutputCollector collector;

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
    }

    @Override
    public void execute(TupleWindow window) {
        List<Tuple> tuples = window.get();
        if (tuples.isEmpty()) {
            return;
        }
        long sum = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Tuple t : tuples) {
            long n = t.getLongByField("number");
            sum += n;
            first = Math.min(first, n);
            last = Math.max(last, n);
        }
        collector.emit(new Values("window", first, last, tuples.size(), sum));
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("tag", "first", "last", "size", "sum"));
    }
}

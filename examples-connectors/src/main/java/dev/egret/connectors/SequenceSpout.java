package dev.egret.connectors;

import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * A reliable source of our own: emits {@code (key, seq, word)} for every sequence number
 * in {@code [0, total)}, with the sequence number as message id, split over the spout's
 * tasks by task index. A failed tuple is emitted again. The key is {@code k<seq % keys>},
 * the word {@code w<seq % keys>}: a test knows every count from {@code total} and
 * {@code keys} alone.
 *
 * <p>With {@code lookups} set, once every one of its tuples is acked each task emits every
 * word whose first occurrence is its own once more on the {@code lookup} stream (field
 * {@code word}), so a lookup bolt sees each word once, after all of its counts were stored.
 */
public class SequenceSpout extends BaseRichSpout {
    public static final String LOOKUP_STREAM = "lookup";

    private final long total;
    private final int keys;
    private final boolean lookups;
    private transient SpoutOutputCollector collector;
    private transient long next;
    private transient long index;
    private transient long step;
    private transient long unacked;
    private transient TreeMap<Long, Boolean> retry;
    private transient boolean lookedUp;

    public SequenceSpout(long total, int keys, boolean lookups) {
        this.total = total;
        this.keys = keys;
        this.lookups = lookups;
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.index = context.getThisTaskIndex();
        this.next = index;
        this.step = context.getComponentTasks(context.getThisComponentId()).size();
        this.retry = new TreeMap<>();
        long mine = 0;
        for (long s = next; s < total; s += step) {
            mine++;
        }
        this.unacked = mine;
    }

    private Values record(long seq) {
        long k = seq % keys;
        return new Values("k" + k, seq, "w" + k);
    }

    @Override
    public void nextTuple() {
        Map.Entry<Long, Boolean> again = retry.pollFirstEntry();
        if (again != null) {
            collector.emit(record(again.getKey()), again.getKey());
        } else if (next < total) {
            collector.emit(record(next), next);
            next += step;
        } else if (lookups && unacked == 0 && !lookedUp) {
            lookedUp = true;
            for (long k = 0; k < Math.min(keys, total); k++) {
                if (k % step == index) {
                    collector.emit(LOOKUP_STREAM, new Values("w" + k), "lookup-" + k);
                }
            }
        }
    }

    @Override
    public void ack(Object msgId) {
        if (msgId instanceof Long) {
            unacked--;
        }
    }

    @Override
    public void fail(Object msgId) {
        if (msgId instanceof Long seq) {
            retry.put(seq, Boolean.TRUE);
        } else if (msgId instanceof String s && s.startsWith("lookup-")) {
            long k = Long.parseLong(s.substring("lookup-".length()));
            collector.emit(LOOKUP_STREAM, new Values("w" + k), s);
        }
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("key", "seq", "word"));
        declarer.declareStream(LOOKUP_STREAM, new Fields("word"));
    }
}

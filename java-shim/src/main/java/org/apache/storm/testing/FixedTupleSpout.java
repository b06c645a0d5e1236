package org.apache.storm.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IRichSpout;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/**
 * Emits a fixed list of tuples once, tracked, spread over its tasks (task i of n emits the
 * tuples at indices congruent to i); a failed tuple is not replayed. The acked and failed
 * counts are kept per spout id in this JVM ({@link #getNumAcked}, {@link #getNumFailed}).
 * Each element is a {@link FixedTuple} or a {@code List} of values for the default stream.
 */
public class FixedTupleSpout implements IRichSpout, CompletableSpout {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Integer> acked = new HashMap<>();
    private static final Map<String, Integer> failed = new HashMap<>();

    private final List<FixedTuple> tuples;
    private final String id;
    private final Fields fields;
    private transient SpoutOutputCollector collector;
    private transient int serveTuplesCursor;
    private transient List<FixedTuple> serveTuples;
    private transient Map<String, FixedTuple> pending;

    public FixedTupleSpout(List tuples) {
        this(tuples, null);
    }

    public FixedTupleSpout(List tuples, Fields fields) {
        this.id = UUID.randomUUID().toString();
        synchronized (acked) {
            acked.put(id, 0);
        }
        synchronized (failed) {
            failed.put(id, 0);
        }
        this.tuples = new ArrayList<>();
        for (Object o : tuples) {
            this.tuples.add(toFixed(o));
        }
        this.fields = fields;
    }

    @SuppressWarnings("unchecked")
    private static FixedTuple toFixed(Object o) {
        if (o instanceof FixedTuple) {
            return (FixedTuple) o;
        }
        return new FixedTuple((List<Object>) o);
    }

    public static int getNumAcked(String stormId) {
        synchronized (acked) {
            return acked.getOrDefault(stormId, 0);
        }
    }

    public static int getNumFailed(String stormId) {
        synchronized (failed) {
            return failed.getOrDefault(stormId, 0);
        }
    }

    public static void clear(String stormId) {
        synchronized (acked) {
            acked.remove(stormId);
        }
        synchronized (failed) {
            failed.remove(stormId);
        }
    }

    public List<FixedTuple> getSourceTuples() {
        return tuples;
    }

    public int getCompleted() {
        return getNumAcked(id) + getNumFailed(id);
    }

    public void cleanup() {
        clear(id);
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.pending = new HashMap<>();
        List<Integer> tasks = context.getComponentTasks(context.getThisComponentId());
        int startIndex = tasks.indexOf(context.getThisTaskId());
        serveTuples = new ArrayList<>();
        for (int i = startIndex; i < tuples.size(); i += tasks.size()) {
            serveTuples.add(tuples.get(i));
        }
        serveTuplesCursor = 0;
    }

    @Override
    public void close() {
    }

    @Override
    public void nextTuple() {
        if (serveTuplesCursor < serveTuples.size()) {
            FixedTuple ft = serveTuples.get(serveTuplesCursor++);
            String msgId = UUID.randomUUID().toString();
            pending.put(msgId, ft);
            collector.emit(ft.stream, ft.values, msgId);
        }
    }

    @Override
    public void ack(Object msgId) {
        pending.remove(msgId);
        synchronized (acked) {
            acked.merge(id, 1, Integer::sum);
        }
    }

    @Override
    public void fail(Object msgId) {
        pending.remove(msgId);
        synchronized (failed) {
            failed.merge(id, 1, Integer::sum);
        }
    }

    @Override
    public void activate() {
    }

    @Override
    public void deactivate() {
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        if (fields != null) {
            declarer.declare(fields);
        }
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return null;
    }

    @Override
    public boolean isExhausted() {
        return getSourceTuples().size() == getCompleted();
    }
}

package org.apache.storm.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits {@code (source, eventId)} with increasing event ids 1, 2, ... (message id = event id),
 * {@code totalCount} divided evenly over the spout's tasks ({@code source} is the task id).
 * Acks and fails are counted in a process-wide table under this spout's id;
 * {@link #completed()} once they reach {@code totalCount}.
 */
public class TestEventLogSpout extends BaseRichSpout implements CompletableSpout {
    private static final long serialVersionUID = 1L;
    public static Logger LOG = LoggerFactory.getLogger(TestEventLogSpout.class);
    private static final Map<String, Integer> ACKED = new HashMap<>();
    private static final Map<String, Integer> FAILED = new HashMap<>();

    private final String uid;
    private final long totalCount;
    private transient SpoutOutputCollector collector;
    private long eventId = 0;
    private long myCount;
    private int source;

    public TestEventLogSpout(long totalCount) {
        this.uid = UUID.randomUUID().toString();
        synchronized (ACKED) {
            ACKED.put(uid, 0);
        }
        synchronized (FAILED) {
            FAILED.put(uid, 0);
        }
        this.totalCount = totalCount;
    }

    public static int getNumAcked(String stormId) {
        synchronized (ACKED) {
            return Utils.get(ACKED, stormId, 0);
        }
    }

    public static int getNumFailed(String stormId) {
        synchronized (FAILED) {
            return Utils.get(FAILED, stormId, 0);
        }
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.source = context.getThisTaskId();
        long taskCount = context.getComponentTasks(context.getThisComponentId()).size();
        this.myCount = totalCount / taskCount;
    }

    @Override
    public void close() {
    }

    public void cleanup() {
        synchronized (ACKED) {
            ACKED.remove(uid);
        }
        synchronized (FAILED) {
            FAILED.remove(uid);
        }
    }

    /** Whether the acks and fails together have reached {@code totalCount}. */
    public boolean completed() {
        int acked;
        int failed;
        synchronized (ACKED) {
            acked = ACKED.get(uid);
        }
        synchronized (FAILED) {
            failed = FAILED.get(uid);
        }
        return acked + failed >= totalCount;
    }

    @Override
    public void nextTuple() {
        if (eventId < myCount) {
            eventId++;
            collector.emit(new Values(source, eventId), eventId);
        }
    }

    @Override
    public void ack(Object msgId) {
        synchronized (ACKED) {
            ACKED.merge(uid, 1, Integer::sum);
        }
    }

    @Override
    public void fail(Object msgId) {
        synchronized (FAILED) {
            FAILED.merge(uid, 1, Integer::sum);
        }
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("source", "eventId"));
    }

    @Override
    public boolean isExhausted() {
        return completed();
    }
}

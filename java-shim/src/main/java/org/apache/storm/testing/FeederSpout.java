package org.apache.storm.testing;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.HashMap;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * Storm's test spout that emits the tuples its creator feeds it. In Storm's in-process
 * cluster the spout and {@code feed} share a JVM; on Egret the spout runs in an instance JVM,
 * so the tuples travel over a loopback connection to a {@link FeedServer} in the JVM that
 * created the spout (its address and secret travel with the serialized spout). Acks and
 * fails travel back and reach the {@link AckFailDelegate} in the feeding JVM, as in Storm.
 *
 * <p>As Storm: {@link #feed(List, Object)} waits up to 20 s for the spout to be running (its
 * reader), {@link #feedNoWait} does not; tuples are emitted with their message id (a random
 * UUID when none is given); with several spout tasks each fed tuple goes to one of them.
 */
public class FeederSpout extends BaseRichSpout {
    private static final long serialVersionUID = 1L;

    private final int id;
    private final Fields outFields;
    private final FeedServer.Address server;
    private transient SpoutOutputCollector collector;
    private transient AckFailDelegate ackFailDelegate;
    private transient FeedClient feedClient;

    public FeederSpout(List<String> outFields) {
        this(new Fields(outFields));
    }

    public FeederSpout(Fields outFields) {
        FeedServer feeds = FeedServer.get();
        this.id = feeds.newFeed();
        this.outFields = outFields;
        this.server = feeds.address();
    }

    /** Acks and fails of fed tuples are passed to {@code d} (in this, the feeding, JVM). */
    public void setAckFailDelegate(AckFailDelegate d) {
        ackFailDelegate = d;
        FeedServer.get().setDelegate(id, d);
    }

    public void feed(List<Object> tuple) {
        feed(tuple, UUID.randomUUID().toString());
    }

    public void feed(List<Object> tuple, Object msgId) {
        FeedServer.get().waitForReader(id);
        FeedServer.get().enqueue(id, new Values(tuple, msgId));
    }

    public void feedNoWait(List<Object> tuple, Object msgId) {
        FeedServer.get().enqueue(id, new Values(tuple, msgId));
    }

    /** Waits (up to 20 s) until a task of this spout is running and connected. */
    public void waitForReader() {
        FeedServer.get().waitForReader(id);
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.feedClient = FeedClient.start(server, id);
    }

    @Override
    public void close() {
        if (feedClient != null) {
            feedClient.close();
            feedClient = null;
        }
    }

    @Override
    public void nextTuple() {
        List<Object> toEmit = feedClient == null ? null : feedClient.poll();
        if (toEmit != null) {
            @SuppressWarnings("unchecked")
            List<Object> tuple = (List<Object>) toEmit.get(0);
            collector.emit(tuple, toEmit.get(1));
        }
    }

    @Override
    public void ack(Object msgId) {
        if (ackFailDelegate != null) {
            ackFailDelegate.ack(msgId);
        } else if (feedClient != null) {
            feedClient.report(true, msgId);
        }
    }

    @Override
    public void fail(Object msgId) {
        if (ackFailDelegate != null) {
            ackFailDelegate.fail(msgId);
        } else if (feedClient != null) {
            feedClient.report(false, msgId);
        }
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(outFields);
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return new HashMap<>();
    }
}

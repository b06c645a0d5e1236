package org.apache.storm.testing;

import java.util.List;
import java.util.Map;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IRichSpout;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;

/**
 * Runs a spout and counts, in the stats map that {@link org.apache.storm.utils.RegisteredGlobalState}
 * holds under {@code trackId}: each tuple it emits ({@code "spout-emitted"}) and each ack or
 * fail it is given ({@code "processed"}).
 */
public class SpoutTracker extends BaseRichSpout {
    private static final long serialVersionUID = 1L;

    private final IRichSpout delegate;
    private final String trackId;

    public SpoutTracker(IRichSpout delegate, String trackId) {
        this.delegate = delegate;
        this.trackId = trackId;
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        delegate.open(conf, context, new SpoutOutputCollector(new Counting(collector)));
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void nextTuple() {
        delegate.nextTuple();
    }

    @Override
    public void ack(Object msgId) {
        delegate.ack(msgId);
        TrackerStats.add(trackId, "processed", 1);
    }

    @Override
    public void fail(Object msgId) {
        delegate.fail(msgId);
        TrackerStats.add(trackId, "processed", 1);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        delegate.declareOutputFields(declarer);
    }

    private final class Counting implements ISpoutOutputCollector {
        private final SpoutOutputCollector collector;

        Counting(SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
            List<Integer> tasks = collector.emit(streamId, tuple, messageId);
            TrackerStats.add(trackId, "spout-emitted", 1);
            return tasks;
        }

        @Override
        public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
            collector.emitDirect(taskId, streamId, tuple, messageId);
            TrackerStats.add(trackId, "spout-emitted", 1);
        }

        @Override
        public void flush() {
            collector.flush();
        }

        @Override
        public void reportError(Throwable error) {
            collector.reportError(error);
        }

        @Override
        public long getPendingCount() {
            return collector.getPendingCount();
        }
    }
}

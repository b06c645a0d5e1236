package org.apache.storm.topology;

import dev.egret.client.TopologyCapture;
import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;

/** A topology's contexts and a recording collector for executor tests. */
final class Fakes {
    private Fakes() {
    }

    /** A spout declaring (v, ts) on the default stream. */
    static final class ValueSpout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("v", "ts"));
        }
    }

    static TopologyView view(TopologyBuilder builder) throws Exception {
        return new TopologyView(TopologyCapture.capture("test", new HashMap<>(), builder.createTopology()));
    }

    static TopologyContext context(TopologyView view, String component) {
        int task = view.tasksOf(component).get(0);
        return new TopologyContext(view, task, List.of(task), "/tmp", "/tmp", null, null, null);
    }

    static Tuple tuple(TopologyView view, String source, String stream, Object... values) {
        TopologyContext ctx = context(view, source);
        return new TupleImpl(ctx, List.of(values), source, ctx.getThisTaskId(), stream);
    }

    /** An emit as recorded: stream, values, anchors. */
    static final class Emit {
        final String stream;
        final List<Object> values;
        final List<Tuple> anchors;

        Emit(String stream, List<Object> values, Collection<Tuple> anchors) {
            this.stream = stream;
            this.values = values;
            this.anchors = anchors == null ? List.of() : new ArrayList<>(anchors);
        }
    }

    /** Records emits, acks and fails, in order. */
    static final class Collector implements IOutputCollector {
        final List<Emit> emits = new ArrayList<>();
        final List<Tuple> acked = new ArrayList<>();
        final List<Tuple> failed = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public synchronized List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emits.add(new Emit(streamId, tuple, anchors));
            return List.of();
        }

        @Override
        public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emit(streamId, anchors, tuple);
        }

        @Override
        public synchronized void ack(Tuple input) {
            acked.add(input);
        }

        @Override
        public synchronized void fail(Tuple input) {
            failed.add(input);
        }

        @Override
        public void resetTimeout(Tuple input) {
        }

        @Override
        public void flush() {
        }

        @Override
        public synchronized void reportError(Throwable error) {
            errors.add(error);
        }
    }
}

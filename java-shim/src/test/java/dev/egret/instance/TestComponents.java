package dev.egret.instance;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/** Spouts, bolts and groupings used by the tests. Static lists collect what they saw (same JVM). */
final class TestComponents {
    private TestComponents() {
    }

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** Emits "w0", "w1", ... with the counter as message id, up to a limit. */
    static final class CountingSpout implements ISpout {
        private final int limit;
        private transient SpoutOutputCollector collector;
        private transient TopologyContext context;
        private int next;

        CountingSpout(int limit) {
            this.limit = limit;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext ctx, SpoutOutputCollector c) {
            this.collector = c;
            this.context = ctx;
            EVENTS.add("open " + ctx.getThisComponentId() + ":" + ctx.getThisTaskId() + " index " + ctx.getThisTaskIndex());
        }

        @Override
        public void close() {
        }

        @Override
        public void activate() {
            EVENTS.add("activate " + context.getThisTaskId());
        }

        @Override
        public void deactivate() {
            EVENTS.add("deactivate " + context.getThisTaskId());
        }

        @Override
        public void nextTuple() {
            if (next < limit) {
                List<Integer> targets = collector.emit(new Values("w" + next), next);
                EVENTS.add("emitted w" + next + " to " + targets);
                next++;
            }
        }

        @Override
        public void ack(Object msgId) {
            EVENTS.add("ack " + msgId);
        }

        @Override
        public void fail(Object msgId) {
        }
    }

    /** Appends "!" and re-emits; records ticks. */
    static final class ExclaimBolt implements IBolt {
        private transient OutputCollector collector;
        private transient TopologyContext context;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            this.collector = c;
            this.context = ctx;
            EVENTS.add("prepare " + ctx.getThisComponentId() + ":" + ctx.getThisTaskId());
        }

        @Override
        public void execute(Tuple input) {
            if (org.apache.storm.utils.TupleUtils.isTick(input)) {
                EVENTS.add("tick " + context.getThisTaskId() + " " + input.getValue(0));
                return;
            }
            EVENTS.add("execute " + context.getThisTaskId() + " " + input.getString(0) + " from "
                    + input.getSourceComponent() + ":" + input.getSourceTask());
            collector.emit(input, new Values(input.getString(0) + "!"));
            collector.ack(input);
        }

        @Override
        public void cleanup() {
        }
    }

    /** A bolt that does nothing (a sink in routing tests). */
    static final class NullBolt implements IBolt {
        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
        }

        @Override
        public void execute(Tuple input) {
        }

        @Override
        public void cleanup() {
        }
    }

    /** Sends everything to the highest prepared target, and records what prepare saw. */
    static final class HighestGrouping implements CustomStreamGrouping {
        static final List<String> PREPARED = new CopyOnWriteArrayList<>();
        private List<Integer> targets;

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            targets = new ArrayList<>(targetTasks);
            PREPARED.add(stream.get_componentId() + ":" + stream.get_streamId() + " " + targetTasks);
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            return Collections.singletonList(Collections.max(targets));
        }
    }
}

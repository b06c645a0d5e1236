package dev.egret.instance;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.FailedException;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.ReportedFailedException;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/** Components for the acking tests; they record what happened in {@link TestComponents#EVENTS}. */
final class AckingComponents {
    private AckingComponents() {
    }

    static final AtomicLong MAX_PENDING_SEEN = new AtomicLong();

    /** Emits "m0", "m1", ... with the counter as message id up to a limit; replays what fails. */
    static final class TrackedSpout implements ISpout {
        private final int limit;
        private transient SpoutOutputCollector collector;
        private transient ArrayDeque<Integer> replay;
        private int next;

        TrackedSpout(int limit) {
            this.limit = limit;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext ctx, SpoutOutputCollector c) {
            collector = c;
            replay = new ArrayDeque<>();
            TestComponents.EVENTS.add("open " + ctx.getThisTaskId());
        }

        @Override
        public void close() {
        }

        @Override
        public void activate() {
        }

        @Override
        public void deactivate() {
        }

        @Override
        public void nextTuple() {
            Integer id = replay.poll();
            if (id == null && next < limit) {
                id = next++;
            }
            if (id != null) {
                collector.emit(new Values("m" + id), id);
                TestComponents.EVENTS.add("emit m" + id);
                MAX_PENDING_SEEN.accumulateAndGet(collector.getPendingCount(), Math::max);
            }
        }

        @Override
        public void ack(Object msgId) {
            TestComponents.EVENTS.add("ack " + msgId);
        }

        @Override
        public void fail(Object msgId) {
            TestComponents.EVENTS.add("fail " + msgId);
            replay.add((Integer) msgId);
        }
    }

    /**
     * "split..." emits anchored (to every target of the stream) then acks; "join..." waits for
     * a second join tuple and emits one tuple anchored to both, then acks both; "fail..."
     * fails; "reset..." resets the timeout then acks; "twice..." acks twice; "free..." emits
     * unanchored and acks.
     */
    static final class AnchoringBolt implements IBolt {
        private transient OutputCollector collector;
        private transient List<Tuple> joined;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            collector = c;
            joined = new ArrayList<>();
        }

        @Override
        public void execute(Tuple input) {
            String v = input.getString(0);
            TestComponents.EVENTS.add("a " + v + " ids " + input.getMessageId().getAnchorsToIds());
            if (v.startsWith("split")) {
                collector.emit(input, new Values(v + "!"));
                collector.ack(input);
            } else if (v.startsWith("join")) {
                joined.add(input);
                if (joined.size() == 2) {
                    collector.emit(joined, new Values("joined"));
                    for (Tuple t : joined) {
                        collector.ack(t);
                    }
                    joined.clear();
                }
            } else if (v.startsWith("fail")) {
                collector.fail(input);
            } else if (v.startsWith("reset")) {
                collector.resetTimeout(input);
                collector.ack(input);
            } else if (v.startsWith("twice")) {
                collector.ack(input);
                collector.ack(input);
            } else if (v.startsWith("free")) {
                collector.emit(new Values(v + "!"));
                collector.ack(input);
            }
        }

        @Override
        public void cleanup() {
        }
    }

    /** Acks what it gets. */
    static final class AckingBolt implements IBolt {
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            collector = c;
        }

        @Override
        public void execute(Tuple input) {
            collector.ack(input);
        }

        @Override
        public void cleanup() {
        }
    }

    /** A basic bolt: appends "!", throws FailedException on "bad", ReportedFailedException on "report". */
    static final class ExclaimBasic extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            String v = input.getString(0);
            if (v.equals("bad")) {
                throw new FailedException("bad input");
            }
            if (v.equals("report")) {
                throw new ReportedFailedException("reported input");
            }
            collector.emit(new Values(v + "!"));
            TestComponents.EVENTS.add("basic " + v);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }

    /** Emits once directly to task 1 (message id 0) and once to a task that does not subscribe (id 1). */
    static final class DirectSpout implements ISpout {
        private transient SpoutOutputCollector collector;
        private transient int selfTask;
        private boolean done;

        @Override
        public void open(Map<String, Object> conf, TopologyContext ctx, SpoutOutputCollector c) {
            collector = c;
            selfTask = ctx.getThisTaskId();
        }

        @Override
        public void close() {
        }

        @Override
        public void activate() {
        }

        @Override
        public void deactivate() {
        }

        @Override
        public void nextTuple() {
            if (!done) {
                done = true;
                collector.emitDirect(1, "d", new Values("x"), 0);
                collector.emitDirect(selfTask, "d", new Values("y"), 1);
            }
        }

        @Override
        public void ack(Object msgId) {
            TestComponents.EVENTS.add("ack " + msgId);
        }

        @Override
        public void fail(Object msgId) {
            TestComponents.EVENTS.add("fail " + msgId);
        }
    }
}

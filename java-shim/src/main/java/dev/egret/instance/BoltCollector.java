package dev.egret.instance;

import dev.egret.metrics.TaskStats;
import dev.egret.proto.AckEntry;
import dev.egret.proto.AckKind;
import java.util.Collection;
import java.util.List;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.MessageId;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bolt task's collector. Emits may come from any thread. Anchored emits join the
 * anchors' tuple trees; {@code ack}, {@code fail} and {@code resetTimeout} turn into ledger
 * updates ({@link AckEntry}, one per root of the tuple) that travel in the outgoing batch.
 * Tuples without roots (ticks, untracked tuples) need nothing. A tuple is acked or failed
 * at most once: later calls are ignored (Storm would XOR its edge in twice).
 */
final class BoltCollector implements IOutputCollector {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    private final TaskEmitter emitter;
    private final ErrorSink errors;
    private final OutboundSink sink;
    private final String component;
    private final TaskStats stats;
    /** The tuple whose execute is running on the executor thread, and when it started (nanoTime). */
    private volatile Tuple executing;
    private volatile long executeStartNanos;
    /** The task's context, for its hooks (null: no hooks). */
    private volatile TopologyContext hookContext;

    BoltCollector(TaskEmitter emitter, ErrorSink errors, OutboundSink sink, String component) {
        this(emitter, errors, sink, component, new TaskStats());
    }

    BoltCollector(TaskEmitter emitter, ErrorSink errors, OutboundSink sink, String component, TaskStats stats) {
        this.emitter = emitter;
        this.errors = errors;
        this.sink = sink;
        this.component = component;
        this.stats = stats;
    }

    /** From now on acks and fails are shown to the task hooks of {@code context}. */
    void hooks(TopologyContext context) {
        this.hookContext = context;
    }

    /** The executor starts (tuple non-null) or ends (null) an execute. */
    void executing(Tuple tuple, long startNanos) {
        this.executeStartNanos = startNanos;
        this.executing = tuple;
    }

    /**
     * Storm's process latency: from the start of the tuple's execute to its ack. Exact (ns)
     * when acked during its own execute, else from the millisecond start time on the tuple.
     */
    private long processNanos(Tuple input) {
        if (input == executing) {
            return System.nanoTime() - executeStartNanos;
        }
        if (input instanceof TupleImpl) {
            Long start = ((TupleImpl) input).getProcessSampleStartTime();
            if (start != null) {
                return (System.currentTimeMillis() - start) * 1_000_000L;
            }
        }
        return 0L;
    }

    private String inputKey(Tuple input) {
        return stats.inputKey(input.getSourceComponent(), input.getSourceStreamId());
    }

    @Override
    public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        List<Integer> targets = emitter.emit(streamId, tuple, 0L, anchors);
        emitter.eventLog(null, tuple);
        return targets;
    }

    @Override
    public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        emitter.emitDirect(taskId, streamId, tuple, 0L, anchors);
        emitter.eventLog(null, tuple);
    }

    @Override
    public void ack(Tuple input) {
        TreeMessageId id = trackedId(input);
        if (id != null) {
            if (!id.complete()) {
                LOG.debug("Ignoring a second ack/fail of a tuple by task {}:{}", component, emitter.taskId());
                return;
            }
            long ackVal = input instanceof TupleImpl ? ((TupleImpl) input).getAckVal() : 0L;
            send(AckKind.ACK_KIND_ACK, id, id.edgeId() ^ ackVal);
        }
        long processNanos = processNanos(input);
        stats.boltAcked(inputKey(input), processNanos);
        TopologyContext ctx = hookContext;
        if (ctx != null && !ctx.getHooks().isEmpty()) {
            new BoltAckInfo(input, emitter.taskId(), processNanos / 1_000_000L).applyOn(ctx);
        }
        if (emitter.debug()) {
            LOG.info("BOLT ack TASK: {} TIME: {} TUPLE: {}", emitter.taskId(), timeDelta(input), input);
        }
    }

    @Override
    public void fail(Tuple input) {
        TreeMessageId id = trackedId(input);
        if (id != null) {
            if (!id.complete()) {
                LOG.debug("Ignoring a second ack/fail of a tuple by task {}:{}", component, emitter.taskId());
                return;
            }
            send(AckKind.ACK_KIND_FAIL, id, 0L);
        }
        stats.boltFailed(inputKey(input));
        TopologyContext ctx = hookContext;
        if (ctx != null && !ctx.getHooks().isEmpty()) {
            new BoltFailInfo(input, emitter.taskId(), processNanos(input) / 1_000_000L).applyOn(ctx);
        }
        if (emitter.debug()) {
            LOG.info("BOLT fail TASK: {} TIME: {} TUPLE: {}", emitter.taskId(), timeDelta(input), input);
        }
    }

    @Override
    public void resetTimeout(Tuple input) {
        TreeMessageId id = trackedId(input);
        if (id != null && !id.isCompleted()) {
            send(AckKind.ACK_KIND_RESET_TIMEOUT, id, 0L);
        }
    }

    private static TreeMessageId trackedId(Tuple input) {
        if (input == null) {
            throw new IllegalArgumentException("tuple must not be null");
        }
        MessageId id = input.getMessageId();
        return id instanceof TreeMessageId ? (TreeMessageId) id : null;
    }

    private void send(AckKind kind, TreeMessageId id, long xor) {
        sink.addAcks(kind, id.roots(), xor);
    }

    /** Storm logs the time since the tuple was received when sampled, else -1 (Egret does not sample). */
    private static long timeDelta(Tuple input) {
        if (input instanceof TupleImpl) {
            Long start = ((TupleImpl) input).getProcessSampleStartTime();
            if (start != null) {
                return System.currentTimeMillis() - start;
            }
        }
        return -1;
    }

    @Override
    public void flush() {
        sink.flush();
    }

    @Override
    public void reportError(Throwable error) {
        errors.report(emitter.taskId(), component, error, false);
    }
}

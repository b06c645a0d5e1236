package dev.egret.instance;

import java.util.Collection;
import java.util.List;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bolt task's collector. Emits may come from any thread. Acking does not exist yet on
 * the data path, so ack/fail/resetTimeout only log under topology.debug.
 */
final class BoltCollector implements IOutputCollector {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    private final TaskEmitter emitter;
    private final ErrorSink errors;
    private final OutboundSink sink;
    private final String component;

    BoltCollector(TaskEmitter emitter, ErrorSink errors, OutboundSink sink, String component) {
        this.emitter = emitter;
        this.errors = errors;
        this.sink = sink;
        this.component = component;
    }

    @Override
    public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        return emitter.emit(streamId, tuple);
    }

    @Override
    public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
        emitter.emitDirect(taskId, streamId, tuple);
    }

    @Override
    public void ack(Tuple input) {
        if (emitter.debug()) {
            LOG.info("BOLT ack TASK: {} TIME: {} TUPLE: {}", emitter.taskId(), -1, input);
        }
    }

    @Override
    public void fail(Tuple input) {
        if (emitter.debug()) {
            LOG.info("BOLT fail TASK: {} TIME: {} TUPLE: {}", emitter.taskId(), -1, input);
        }
    }

    @Override
    public void resetTimeout(Tuple input) {
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

package dev.egret.instance;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.egret.proto.TupleData;
import dev.egret.serialization.TupleValuesCodec;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits tuples for one task: routes them with the task's {@link Router}, serializes the
 * values once and hands one {@code TupleData} per target task to the sink, all sharing
 * the same bytes.
 */
final class TaskEmitter {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    private final int taskId;
    private final String component;
    private final Router router;
    private final OutboundSink sink;
    private final ThreadLocal<TupleValuesCodec> codecs;
    private final boolean debug;
    /** Emits so far; the spout loop reads it to decide whether to back off. Racy reads are fine. */
    volatile long emitted;

    TaskEmitter(int taskId, String component, Router router, OutboundSink sink,
                ThreadLocal<TupleValuesCodec> codecs, boolean debug) {
        this.taskId = taskId;
        this.component = component;
        this.router = router;
        this.sink = sink;
        this.codecs = codecs;
        this.debug = debug;
    }

    int taskId() {
        return taskId;
    }

    boolean debug() {
        return debug;
    }

    List<Integer> emit(String stream, List<Object> values) {
        if (stream == null) {
            throw new IllegalArgumentException("stream id must not be null");
        }
        if (values == null) {
            throw new IllegalArgumentException("tuple values must not be null");
        }
        List<Integer> targets = router.route(taskId, stream, values);
        if (debug) {
            LOG.info("Emitting: {} {} {}", component, stream, values);
        }
        send(stream, values, targets);
        emitted++;
        return targets;
    }

    void emitDirect(int targetTask, String stream, List<Object> values) {
        if (stream == null) {
            throw new IllegalArgumentException("stream id must not be null");
        }
        if (values == null) {
            throw new IllegalArgumentException("tuple values must not be null");
        }
        boolean deliver = router.routeDirect(stream, targetTask);
        if (debug) {
            LOG.info("Emitting direct: {}; {} {} {}", targetTask, component, stream, values);
        }
        if (deliver) {
            send(stream, values, Collections.singletonList(targetTask));
        }
        emitted++;
    }

    private void send(String stream, List<Object> values, List<Integer> targets) {
        if (targets.isEmpty()) {
            return;
        }
        ByteString bytes = UnsafeByteOperations.unsafeWrap(codecs.get().serialize(values));
        for (Integer dest : targets) {
            if (debug) {
                LOG.info("TRANSFERRING tuple [dest: {} tuple: source: {}:{}, stream: {}, id: {}, {}"
                        + " PROC_START_TIME(sampled): null EXEC_START_TIME(sampled): null]",
                        dest, component, taskId, stream, "{}", values);
            }
            sink.add(TupleData.newBuilder().setDestTask(dest).setSrcTask(taskId).setStream(stream)
                    .setValues(bytes).build());
        }
    }
}

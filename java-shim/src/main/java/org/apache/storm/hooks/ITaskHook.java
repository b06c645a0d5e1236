package org.apache.storm.hooks;

import java.util.Map;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.task.TopologyContext;

/**
 * Observes one task: called by the runtime on the thread that emits, acks or executes.
 * Registered with {@link TopologyContext#addTaskHook} or by class name in
 * {@code topology.auto.task.hooks} (one instance per task).
 */
public interface ITaskHook {
    void prepare(Map<String, Object> conf, TopologyContext context);

    void cleanup();

    void emit(EmitInfo info);

    void spoutAck(SpoutAckInfo info);

    void spoutFail(SpoutFailInfo info);

    void boltExecute(BoltExecuteInfo info);

    void boltAck(BoltAckInfo info);

    void boltFail(BoltFailInfo info);
}

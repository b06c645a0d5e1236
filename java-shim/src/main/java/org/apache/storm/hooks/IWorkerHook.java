package org.apache.storm.hooks;

import java.io.Serializable;
import java.util.Map;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.task.WorkerUserContext;

/**
 * Runs code when a worker starts and when it shuts down. Added with
 * {@code TopologyBuilder.addWorkerHook}; Java-serialized with the topology. In Egret a
 * worker is one instance JVM (one executor), so a hook starts once per instance JVM.
 */
public interface IWorkerHook extends Serializable {
    /**
     * The worker starts, before any task is opened or prepared.
     *
     * @deprecated implement {@link #start(Map, WorkerUserContext)}
     */
    @Deprecated
    default void start(Map<String, Object> topoConf, WorkerTopologyContext context) {
    }

    /** The worker starts, before any task is opened or prepared. Resources set here are visible to the tasks. */
    default void start(Map<String, Object> topoConf, WorkerUserContext context) {
        start(topoConf, (WorkerTopologyContext) context);
    }

    /** The worker shuts down. */
    void shutdown();
}

package org.apache.storm.task;

import dev.egret.instance.TopologyView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.tuple.Fields;

/**
 * The worker context given to {@code IWorkerHook.start}: a hook may publish resources
 * that the worker's tasks then read with {@code getResource}. In Egret the worker is one
 * instance JVM, so the resources are shared by that instance's tasks.
 */
public class WorkerUserContext extends WorkerTopologyContext {
    @SuppressWarnings("rawtypes")
    public WorkerUserContext(StormTopology topology, Map<String, Object> topoConf,
                             Map<Integer, String> taskToComponent,
                             Map<String, List<Integer>> componentToSortedTasks,
                             Map<String, Map<String, Fields>> componentToStreamToFields,
                             String stormId, String codeDir, String pidDir, Integer workerPort,
                             List<Integer> workerTasks, Map<String, Object> defaultResources,
                             Map<String, Object> userResources, AtomicReference taskToNodePort,
                             String assignmentId, AtomicReference<Map<String, String>> nodeToHost) {
        super(topology, topoConf, taskToComponent, componentToSortedTasks, componentToStreamToFields, stormId,
                codeDir, pidDir, workerPort, workerTasks, defaultResources, userResources, taskToNodePort,
                assignmentId, nodeToHost);
    }

    /** Egret's constructor: the worker is this instance JVM; {@code userResources} is shared with its tasks. */
    public WorkerUserContext(TopologyView view, List<Integer> workerTasks, String codeDir, String pidDir,
                             Map<String, Object> defaultResources, Map<String, Object> userResources) {
        super(view, workerTasks, codeDir, pidDir, defaultResources, userResources);
    }

    /** Makes {@code data} available to the worker's tasks as {@code getResource(name)}. */
    public void setResource(String name, Object data) {
        userResources.put(name, data);
    }
}

package org.apache.storm.task;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.tuple.Fields;

/**
 * What a task knows about its worker. In Egret a "worker" is one instance JVM (one
 * executor): its tasks are the instance's tasks and there is no worker port (0).
 */
public class WorkerTopologyContext extends GeneralTopologyContext {
    public static final String SHARED_EXECUTOR = "executor";

    Map<String, Object> userResources;
    Map<String, Object> defaultResources;
    private final List<Integer> workerTasks;
    private final String codeDir;
    private final String pidDir;
    private final Integer workerPort;
    private final String assignmentId;
    private final AtomicReference<Map<String, String>> nodeToHost;
    /** Storm: task id to NodeInfo (host, ports) of its worker. Egret has no worker ports: empty unless given. */
    private final AtomicReference<Map<Integer, Object>> taskToNodePort;

    public WorkerTopologyContext(StormTopology topology, Map<String, Object> topoConf,
                                 Map<Integer, String> taskToComponent,
                                 Map<String, List<Integer>> componentToSortedTasks,
                                 Map<String, Map<String, Fields>> componentToStreamToFields,
                                 String stormId, String codeDir, String pidDir, Integer workerPort,
                                 List<Integer> workerTasks, Map<String, Object> defaultResources,
                                 Map<String, Object> userResources) {
        super(topology, topoConf, taskToComponent, componentToSortedTasks, componentToStreamToFields, stormId);
        this.codeDir = codeDir;
        this.pidDir = pidDir;
        this.workerPort = workerPort;
        this.workerTasks = workerTasks;
        this.defaultResources = defaultResources == null ? new HashMap<>() : defaultResources;
        this.userResources = userResources == null ? new HashMap<>() : userResources;
        this.assignmentId = null;
        this.nodeToHost = new AtomicReference<>(new HashMap<>());
        this.taskToNodePort = new AtomicReference<>(new HashMap<>());
    }

    /** Storm 2's full constructor (worker port, task-to-node map, assignment id and node-to-host map). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public WorkerTopologyContext(StormTopology topology, Map<String, Object> topoConf,
                                 Map<Integer, String> taskToComponent,
                                 Map<String, List<Integer>> componentToSortedTasks,
                                 Map<String, Map<String, Fields>> componentToStreamToFields,
                                 String stormId, String codeDir, String pidDir, Integer workerPort,
                                 List<Integer> workerTasks, Map<String, Object> defaultResources,
                                 Map<String, Object> userResources, AtomicReference taskToNodePort,
                                 String assignmentId, AtomicReference<Map<String, String>> nodeToHost) {
        super(topology, topoConf, taskToComponent, componentToSortedTasks, componentToStreamToFields, stormId);
        this.codeDir = codeDir;
        this.pidDir = pidDir;
        this.workerPort = workerPort;
        this.workerTasks = workerTasks;
        this.defaultResources = defaultResources == null ? new HashMap<>() : defaultResources;
        this.userResources = userResources == null ? new HashMap<>() : userResources;
        this.assignmentId = assignmentId;
        this.nodeToHost = nodeToHost == null ? new AtomicReference<>(new HashMap<>()) : nodeToHost;
        this.taskToNodePort = taskToNodePort == null ? new AtomicReference<>(new HashMap<>()) : taskToNodePort;
    }

    /** Egret's constructor: the worker is this instance JVM. */
    public WorkerTopologyContext(TopologyView view, List<Integer> workerTasks, String codeDir, String pidDir,
                                 Map<String, Object> defaultResources, Map<String, Object> userResources) {
        super(view);
        this.codeDir = codeDir;
        this.pidDir = pidDir;
        this.workerPort = 0;
        this.workerTasks = workerTasks;
        this.defaultResources = defaultResources == null ? new HashMap<>() : defaultResources;
        this.userResources = userResources == null ? new HashMap<>() : userResources;
        this.assignmentId = null;
        this.nodeToHost = new AtomicReference<>(new HashMap<>());
        this.taskToNodePort = new AtomicReference<>(new HashMap<>());
    }

    /**
     * Storm: each task's worker as a NodeInfo. Egret runs one executor per JVM and its
     * instances talk through the stream manager, not worker ports: the map is empty.
     */
    public AtomicReference<Map<Integer, Object>> getTaskToNodePort() {
        return taskToNodePort;
    }

    public List<Integer> getThisWorkerTasks() {
        return new ArrayList<>(workerTasks);
    }

    public Integer getThisWorkerPort() {
        return workerPort;
    }

    public String getAssignmentId() {
        return assignmentId;
    }

    public AtomicReference<Map<String, String>> getNodeToHost() {
        return nodeToHost;
    }

    public String getCodeDir() {
        return codeDir;
    }

    public String getPIDDir() {
        return pidDir;
    }

    public Object getResource(String name) {
        return userResources.get(name);
    }

    public ExecutorService getSharedExecutor() {
        return (ExecutorService) defaultResources.get(SHARED_EXECUTOR);
    }
}

package org.apache.storm.task;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.tuple.Fields;

/**
 * What one task knows about itself: its id, its index within its component, its
 * component's streams and subscriptions. One context per task.
 */
public class TopologyContext extends WorkerTopologyContext {
    private final Integer taskId;
    private final Map<String, Object> taskData = new HashMap<>();
    private final Map<String, Object> executorData;
    private final Map<String, Long> blobToLastKnownVersion;

    /** Egret's constructor: one task of this instance. {@code executorData} is shared by the instance's tasks. */
    public TopologyContext(TopologyView view, int taskId, List<Integer> workerTasks, String codeDir,
                           String pidDir, Map<String, Object> defaultResources, Map<String, Object> userResources,
                           Map<String, Object> executorData) {
        super(view, workerTasks, codeDir, pidDir, defaultResources, userResources);
        this.taskId = taskId;
        this.executorData = executorData == null ? new HashMap<>() : executorData;
        this.blobToLastKnownVersion = new HashMap<>();
    }

    public Map<String, Long> getBlobToLastKnownVersion() {
        return blobToLastKnownVersion;
    }

    public int getThisTaskId() {
        return taskId;
    }

    public String getThisComponentId() {
        return getComponentId(taskId);
    }

    public Fields getThisOutputFields(String streamId) {
        return getComponentOutputFields(getThisComponentId(), streamId);
    }

    public Map<String, List<String>> getThisOutputFieldsForStreams() {
        Map<String, List<String>> ret = new HashMap<>();
        for (String stream : getThisStreams()) {
            ret.put(stream, getThisOutputFields(stream).toList());
        }
        return ret;
    }

    public Set<String> getThisStreams() {
        return getComponentStreams(getThisComponentId());
    }

    public int getThisTaskIndex() {
        List<Integer> tasks = new ArrayList<>(getComponentTasks(getThisComponentId()));
        java.util.Collections.sort(tasks);
        for (int i = 0; i < tasks.size(); i++) {
            if (tasks.get(i).equals(taskId)) {
                return i;
            }
        }
        throw new IllegalStateException("Task " + taskId + " is not a task of component " + getThisComponentId());
    }

    public Map<String, Map<String, List<String>>> getThisInputFields() {
        Map<String, Map<String, List<String>>> outputMap = new HashMap<>();
        for (GlobalStreamId gid : getThisSources().keySet()) {
            String component = gid.get_componentId();
            Fields f = getComponentOutputFields(gid);
            outputMap.computeIfAbsent(component, k -> new HashMap<>()).put(gid.get_streamId(),
                    f == null ? new ArrayList<>() : f.toList());
        }
        return outputMap;
    }

    public Map<GlobalStreamId, Grouping> getThisSources() {
        return getSources(getThisComponentId());
    }

    public Map<String, Map<String, Grouping>> getThisTargets() {
        return getTargets(getThisComponentId());
    }

    public void setTaskData(String name, Object data) {
        taskData.put(name, data);
    }

    public Object getTaskData(String name) {
        return taskData.get(name);
    }

    public void setExecutorData(String name, Object data) {
        executorData.put(name, data);
    }

    public Object getExecutorData(String name) {
        return executorData.get(name);
    }

    @Override
    public String toJSONString() {
        String general = super.toJSONString();
        return "{\"task\":" + taskId + ",\"general\":" + general + "}";
    }
}

package org.apache.storm.task;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.tuple.Fields;

/**
 * Topology-wide information available to every task: which task belongs to which
 * component, the output fields of every stream, and the subscriptions between
 * components.
 */
public class GeneralTopologyContext {
    protected Map<String, Object> topoConf;
    protected boolean doSanityCheck;

    private final StormTopology topology;
    private final Map<Integer, String> taskToComponent;
    private final Map<String, List<Integer>> componentToTasks;
    private final Map<String, Map<String, Fields>> componentToStreamToFields;
    private final String stormId;
    // Set when built by the Egret runtime: answers getSources/getTargets from the plan.
    private final TopologyView view;

    public GeneralTopologyContext(StormTopology topology, Map<String, Object> topoConf,
                                  Map<Integer, String> taskToComponent,
                                  Map<String, List<Integer>> componentToSortedTasks,
                                  Map<String, Map<String, Fields>> componentToStreamToFields,
                                  String stormId) {
        this.topology = topology;
        this.topoConf = topoConf;
        this.taskToComponent = taskToComponent;
        this.componentToTasks = componentToSortedTasks;
        this.componentToStreamToFields = componentToStreamToFields;
        this.stormId = stormId;
        this.view = null;
    }

    /** Egret's constructor: a context over the instance runtime's view of the plan. */
    public GeneralTopologyContext(TopologyView view) {
        this.topology = null;
        this.topoConf = view.topologyConf();
        this.taskToComponent = view.taskToComponent();
        this.componentToTasks = view.componentToTasks();
        this.componentToStreamToFields = view.componentToStreamToFields();
        this.stormId = view.stormId();
        this.view = view;
    }

    public String getStormId() {
        return stormId;
    }

    public StormTopology getRawTopology() {
        return view != null ? view.rawTopology() : topology;
    }

    public String getComponentId(int taskId) {
        if (taskId == -1) {
            return "__system";
        }
        return taskToComponent.get(taskId);
    }

    public Set<String> getComponentStreams(String componentId) {
        Map<String, Fields> streams = componentToStreamToFields.get(componentId);
        return streams == null ? Collections.emptySet() : new HashSet<>(streams.keySet());
    }

    public List<Integer> getComponentTasks(String componentId) {
        List<Integer> ret = componentToTasks.get(componentId);
        return ret == null ? new ArrayList<>() : new ArrayList<>(ret);
    }

    public Fields getComponentOutputFields(String componentId, String streamId) {
        // Every received tuple asks (TupleImpl), mostly with the strings of the tuple before.
        LastFields last = lastFields;
        if (last != null && last.componentId == componentId && last.streamId == streamId) {
            return last.fields;
        }
        Map<String, Fields> streams = componentToStreamToFields.get(componentId);
        Fields ret = streams == null ? null : streams.get(streamId);
        if (ret == null) {
            throw new IllegalArgumentException("No output fields defined for component:stream "
                    + componentId + ":" + streamId);
        }
        lastFields = new LastFields(componentId, streamId, ret);
        return ret;
    }

    /** A lookup of output fields, by the identity of its two strings. */
    private static final class LastFields {
        final String componentId;
        final String streamId;
        final Fields fields;

        LastFields(String componentId, String streamId, Fields fields) {
            this.componentId = componentId;
            this.streamId = streamId;
            this.fields = fields;
        }
    }

    /** The last lookup; racy on purpose (immutable, and any one seen is right). */
    private LastFields lastFields;

    public Fields getComponentOutputFields(GlobalStreamId id) {
        return getComponentOutputFields(id.get_componentId(), id.get_streamId());
    }

    public Map<GlobalStreamId, Grouping> getSources(String componentId) {
        return view == null ? new HashMap<>() : new HashMap<>(view.sources(componentId));
    }

    public Map<String, Map<String, Grouping>> getTargets(String componentId) {
        return view == null ? new HashMap<>() : view.targets(componentId);
    }

    public String toJSONString() {
        StringBuilder sb = new StringBuilder("{\"task->component\":{");
        boolean first = true;
        for (Map.Entry<Integer, String> e : taskToComponent.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append('"').append(e.getKey()).append("\":\"").append(e.getValue()).append('"');
        }
        return sb.append("}}").toString();
    }

    public Map<Integer, String> getTaskToComponent() {
        return taskToComponent;
    }

    public Set<String> getComponentIds() {
        return componentToTasks.keySet();
    }

    public ComponentCommon getComponentCommon(String componentId) {
        return null;
    }

    public int maxTopologyMessageTimeout() {
        Object v = topoConf == null ? null : topoConf.get("topology.message.timeout.secs");
        return v instanceof Number ? ((Number) v).intValue() : 30;
    }

    public Map<String, Object> getConf() {
        return topoConf;
    }

    public boolean doSanityCheck() {
        return doSanityCheck;
    }
}

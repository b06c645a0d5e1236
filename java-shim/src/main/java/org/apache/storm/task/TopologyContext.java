package org.apache.storm.task;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricSet;
import com.codahale.metrics.Timer;
import dev.egret.instance.TopologyView;
import dev.egret.metrics.TaskMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.hooks.ITaskHook;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.state.ISubscribedState;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.metric.api.CombinedMetric;
import org.apache.storm.metric.api.ICombiner;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metric.api.IReducer;
import org.apache.storm.metric.api.ReducedMetric;
import org.apache.storm.tuple.Fields;

/**
 * What one task knows about itself: its id, its index within its component, its
 * component's streams and subscriptions. One context per task.
 *
 * <p>Metrics: v1 metrics ({@code registerMetric}) may only be registered in open/prepare,
 * as in Storm; v2 metrics (Dropwizard) go to the task's own registry. Both live in the
 * task's {@link TaskMetrics}, which the executor reads.
 *
 * <p>Task hooks: {@link #addTaskHook} prepares the hook at once and adds it; the runtime
 * calls the hooks of {@link #getHooks()} on emit, ack, fail and execute, as Storm does.
 */
public class TopologyContext extends WorkerTopologyContext implements IMetricsContext {
    private final Integer taskId;
    private final Map<String, Object> taskData = new HashMap<>();
    private final Map<String, Object> executorData;
    private final Map<String, Long> blobToLastKnownVersion;
    private final TaskMetrics metrics;
    /** Copy-on-write: emits (and so hook calls) may come from any thread of the task. */
    private final List<ITaskHook> hooks = new CopyOnWriteArrayList<>();
    /** Storm's registry of v1 metrics by bucket, task and name; only with Storm's constructor. */
    private final Map<Integer, Map<Integer, Map<String, IMetric>>> registeredMetrics;
    /** Storm's open/prepare flag: registerMetric is refused once it is set; only with Storm's constructor. */
    private final AtomicBoolean openOrPrepareWasCalled;

    /** Egret's constructor: one task of this instance. {@code executorData} is shared by the instance's tasks. */
    public TopologyContext(TopologyView view, int taskId, List<Integer> workerTasks, String codeDir,
                           String pidDir, Map<String, Object> defaultResources, Map<String, Object> userResources,
                           Map<String, Object> executorData) {
        this(view, taskId, workerTasks, codeDir, pidDir, defaultResources, userResources, executorData, null);
    }

    /** Egret's constructor with the task's metrics (the executor reads and reports them). */
    public TopologyContext(TopologyView view, int taskId, List<Integer> workerTasks, String codeDir,
                           String pidDir, Map<String, Object> defaultResources, Map<String, Object> userResources,
                           Map<String, Object> executorData, TaskMetrics metrics) {
        super(view, workerTasks, codeDir, pidDir, defaultResources, userResources);
        this.taskId = taskId;
        this.executorData = executorData == null ? new HashMap<>() : executorData;
        this.blobToLastKnownVersion = new HashMap<>();
        this.metrics = metrics != null ? metrics : new TaskMetrics(view.isSpout(view.componentOf(taskId)));
        this.registeredMetrics = null;
        this.openOrPrepareWasCalled = null;
    }

    /** Storm 2.8's constructor. */
    @SuppressWarnings("rawtypes")
    public TopologyContext(StormTopology topology, Map<String, Object> topoConf, Map<Integer, String> taskToComponent,
                           Map<String, List<Integer>> componentToSortedTasks,
                           Map<String, Map<String, Fields>> componentToStreamToFields,
                           Map<String, Long> blobToLastKnownVersionShared, String stormId, String codeDir,
                           String pidDir, Integer taskId, Integer workerPort, List<Integer> workerTasks,
                           Map<String, Object> defaultResources, Map<String, Object> userResources,
                           Map<String, Object> executorData, Map registeredMetrics,
                           AtomicBoolean openOrPrepareWasCalled, StormMetricRegistry metricRegistry) {
        super(topology, topoConf, taskToComponent, componentToSortedTasks, componentToStreamToFields, stormId,
                codeDir, pidDir, workerPort, workerTasks, defaultResources, userResources, null, null, null);
        this.taskId = taskId;
        this.executorData = executorData == null ? new HashMap<>() : executorData;
        this.blobToLastKnownVersion = blobToLastKnownVersionShared == null ? new HashMap<>()
                : blobToLastKnownVersionShared;
        String component = taskToComponent == null ? null : taskToComponent.get(taskId);
        boolean spout = topology != null && topology.get_spouts() != null && component != null
                && topology.get_spouts().containsKey(component);
        this.metrics = new TaskMetrics(spout);
        if (metricRegistry != null) {
            this.metrics.attach(metricRegistry, this);
        }
        @SuppressWarnings("unchecked")
        Map<Integer, Map<Integer, Map<String, IMetric>>> registered = registeredMetrics;
        this.registeredMetrics = registered;
        this.openOrPrepareWasCalled = openOrPrepareWasCalled;
    }

    /**
     * Adds a hook to this task, preparing it first (as Storm does). Hooks see every
     * emit, ack, fail and execute of the task from then on.
     */
    public void addTaskHook(ITaskHook hook) {
        hook.prepare(getConf(), this);
        hooks.add(hook);
    }

    /** The task's hooks (live list). */
    public List<ITaskHook> getHooks() {
        return hooks;
    }

    /**
     * Storm declares state spouts but never implemented the subscription (its own method
     * throws); Egret rejects topologies with state spouts, so there is nothing to sync.
     */
    public <T extends ISubscribedState> T setAllSubscribedState(T obj) {
        throw new UnsupportedOperationException("State spouts (ISubscribedState) are not implemented by Storm"
                + " nor supported by Egret");
    }

    /** See {@link #setAllSubscribedState}: not implemented by Storm, not supported by Egret. */
    public <T extends ISubscribedState> T setSubscribedState(String componentId, T obj) {
        return setSubscribedState(componentId, org.apache.storm.utils.Utils.DEFAULT_STREAM_ID, obj);
    }

    /** See {@link #setAllSubscribedState}: not implemented by Storm, not supported by Egret. */
    public <T extends ISubscribedState> T setSubscribedState(String componentId, String streamId, T obj) {
        throw new UnsupportedOperationException("State spouts (ISubscribedState) are not implemented by Storm"
                + " nor supported by Egret (subscription to " + componentId + ":" + streamId + ")");
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
    public <T extends IMetric> T registerMetric(String name, T metric, int timeBucketSizeInSecs) {
        if (openOrPrepareWasCalled != null && openOrPrepareWasCalled.get()) {
            throw new RuntimeException("TopologyContext.registerMetric can only be called from within overridden "
                    + "IBolt::prepare() or ISpout::open() method.");
        }
        T registered = metrics.register(name, metric, timeBucketSizeInSecs);
        if (registeredMetrics != null) {
            registeredMetrics.computeIfAbsent(timeBucketSizeInSecs, k -> new HashMap<>())
                    .computeIfAbsent(taskId, k -> new HashMap<>()).put(name, metric);
        }
        return registered;
    }

    @Override
    public ReducedMetric registerMetric(String name, IReducer reducer, int timeBucketSizeInSecs) {
        return registerMetric(name, new ReducedMetric(reducer), timeBucketSizeInSecs);
    }

    @Override
    public CombinedMetric registerMetric(String name, ICombiner combiner, int timeBucketSizeInSecs) {
        return registerMetric(name, new CombinedMetric(combiner), timeBucketSizeInSecs);
    }

    public IMetric getRegisteredMetricByName(String name) {
        return metrics.get(name);
    }

    @Override
    public Timer registerTimer(String name) {
        return metrics.timer(name);
    }

    @Override
    public Histogram registerHistogram(String name) {
        return metrics.histogram(name);
    }

    @Override
    public Meter registerMeter(String name) {
        return metrics.meter(name);
    }

    @Override
    public Counter registerCounter(String name) {
        return metrics.counter(name);
    }

    @Override
    public <T> Gauge<T> registerGauge(String name, Gauge<T> gauge) {
        return metrics.gauge(name, gauge);
    }

    @Override
    public void registerMetricSet(String prefix, MetricSet set) {
        metrics.metricSet(prefix, set);
    }

    @Override
    public String toJSONString() {
        String general = super.toJSONString();
        return "{\"task\":" + taskId + ",\"general\":" + general + "}";
    }
}

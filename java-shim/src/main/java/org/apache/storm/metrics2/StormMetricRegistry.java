package org.apache.storm.metrics2;

import com.codahale.metrics.Counter;
import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricSet;
import com.codahale.metrics.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.metrics2.reporters.StormReporter;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's v2 (Dropwizard) metrics and the reporters of {@code topology.metrics.reporters}.
 * In Egret the worker is one instance JVM; the executor starts one registry before its tasks.
 *
 * <p>Names, as Storm's: a task's metric {@code name} is registered as
 * {@code storm.topology.<topology id>.<host>.<component>.<task>.<worker port>-<name>}; the
 * worker-side ones as {@code storm.worker.<topology id>.<host>.<component>[.<stream>].<task>.<port>-<name>}
 * (dots in host, component and stream become underscores). Egret's worker port is 0. Each metric
 * is also kept per task under its short name ({@link #getTaskMetrics()}, {@code getTaskCounters}...)
 * for dimensional reporters.
 *
 * <p>{@link #start} reads the reporters: each entry is a map with {@code class} (a
 * {@link StormReporter}) and the reporter's own keys. Unlike Storm's worker, which dies, a
 * reporter that cannot be created, prepared or started is logged at ERROR with its class and the
 * reason, and left out: the topology's data path does not depend on its metrics.
 */
public class StormMetricRegistry implements MetricRegistryProvider {
    private static final Logger LOG = LoggerFactory.getLogger(StormMetricRegistry.class);
    private static final String WORKER_METRIC_PREFIX = "storm.worker.";
    private static final String TOPOLOGY_METRIC_PREFIX = "storm.topology.";
    private static final int RATE_COUNTER_UPDATE_INTERVAL_SECONDS = 2;

    private final MetricRegistry registry = new MetricRegistry();
    private final List<StormReporter> reporters = new ArrayList<>();
    private final ConcurrentMap<Integer, Map<String, Gauge>> taskIdGauges = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, Map<String, Meter>> taskIdMeters = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, Map<String, Counter>> taskIdCounters = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, Map<String, Timer>> taskIdTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, Map<String, Histogram>> taskIdHistograms = new ConcurrentHashMap<>();
    private final ConcurrentMap<TaskMetricDimensions, TaskMetricRepo> taskMetrics = new ConcurrentHashMap<>();
    private final Set<RateCounter> rateCounters = ConcurrentHashMap.newKeySet();
    private volatile String hostName = "localhost";
    private volatile int port = -1;
    private volatile String topologyId;
    private ScheduledExecutorService rateTimer;

    public StormMetricRegistry() {
    }

    public RateCounter rateCounter(String metricName, String topologyId, String componentId, int taskId,
                                   int workerPort, String streamId) {
        RateCounter rc = new RateCounter(this, metricName, topologyId, componentId, taskId, workerPort, streamId);
        rateCounters.add(rc);
        return rc;
    }

    public RateCounter rateCounter(String metricName, String componentId, int taskId) {
        RateCounter rc = new RateCounter(this, metricName, topologyId, componentId, taskId, port);
        rateCounters.add(rc);
        return rc;
    }

    public <T> SimpleGauge<T> gauge(T initialValue, String name, String topologyId, String componentId,
                                    Integer taskId, Integer port) {
        SimpleGauge<T> gauge = new SimpleGauge<>(initialValue);
        Names names = workerName(name, topologyId, componentId, null, taskId, port);
        addGauge(names, gauge, taskId, componentId, null);
        return gauge;
    }

    public <T> Gauge<T> gauge(String name, Gauge<T> gauge, TopologyContext context) {
        return addGauge(topologyName(name, context), gauge, context.getThisTaskId(), context.getThisComponentId(),
                null);
    }

    @Deprecated
    public <T> Gauge<T> gauge(String name, Gauge<T> gauge, String topologyId, String componentId, Integer taskId,
                              Integer port) {
        return addGauge(workerName(name, topologyId, componentId, null, taskId, port), gauge, taskId, componentId,
                null);
    }

    public <T> Gauge<T> gauge(String name, Gauge<T> gauge, String componentId, Integer taskId) {
        return addGauge(workerName(name, topologyId, componentId, null, taskId, port), gauge, taskId, componentId,
                null);
    }

    public <T> Gauge<T> gauge(String name, Gauge<T> gauge, String topologyId, String componentId, String streamId,
                              Integer taskId, Integer port) {
        return addGauge(workerName(name, topologyId, componentId, streamId, taskId, port), gauge, taskId,
                componentId, streamId);
    }

    public Meter meter(String name, WorkerTopologyContext context, String componentId, Integer taskId,
                       String streamId) {
        Names names = workerName(name, context.getStormId(), componentId, streamId, taskId,
                context.getThisWorkerPort());
        return add(names, new Meter(), taskId, componentId, streamId, taskIdMeters, TaskMetricRepo::addMeter);
    }

    public Meter meter(String name, WorkerTopologyContext context, String componentId, Integer taskId) {
        Names names = workerName(name, context.getStormId(), componentId, null, taskId, context.getThisWorkerPort());
        return add(names, new Meter(), taskId, componentId, null, taskIdMeters, TaskMetricRepo::addMeter);
    }

    public Meter meter(String name, TopologyContext context) {
        return add(topologyName(name, context), new Meter(), context.getThisTaskId(), context.getThisComponentId(),
                null, taskIdMeters, TaskMetricRepo::addMeter);
    }

    public Counter counter(String name, WorkerTopologyContext context, String componentId, Integer taskId,
                           String streamId) {
        Names names = workerName(name, context.getStormId(), componentId, streamId, taskId,
                context.getThisWorkerPort());
        return add(names, new Counter(), taskId, componentId, streamId, taskIdCounters, TaskMetricRepo::addCounter);
    }

    public Counter counter(String name, String topologyId, String componentId, Integer taskId, Integer workerPort,
                           String streamId) {
        Names names = workerName(name, topologyId, componentId, streamId, taskId, workerPort);
        return add(names, new Counter(), taskId, componentId, streamId, taskIdCounters, TaskMetricRepo::addCounter);
    }

    public Counter counter(String name, TopologyContext context) {
        return add(topologyName(name, context), new Counter(), context.getThisTaskId(),
                context.getThisComponentId(), null, taskIdCounters, TaskMetricRepo::addCounter);
    }

    public Counter counter(String name, String componentId, Integer taskId) {
        Names names = workerName(name, topologyId, componentId, null, taskId, port);
        return add(names, new Counter(), taskId, componentId, null, taskIdCounters, TaskMetricRepo::addCounter);
    }

    public Timer timer(String name, TopologyContext context) {
        return add(topologyName(name, context), new Timer(), context.getThisTaskId(), context.getThisComponentId(),
                null, taskIdTimers, TaskMetricRepo::addTimer);
    }

    public Histogram histogram(String name, TopologyContext context) {
        return add(topologyName(name, context), new Histogram(new ExponentiallyDecayingReservoir()),
                context.getThisTaskId(), context.getThisComponentId(), null, taskIdHistograms,
                TaskMetricRepo::addHistogram);
    }

    /** Registers each metric of the set as {@code prefix.<its name>}, one by one (nested sets are not opened). */
    public void metricSet(String prefix, MetricSet set, TopologyContext context) {
        int task = context.getThisTaskId();
        String component = context.getThisComponentId();
        for (Map.Entry<String, Metric> e : set.getMetrics().entrySet()) {
            Names names = topologyName(prefix + "." + e.getKey(), context);
            Metric m = e.getValue();
            if (m instanceof Gauge) {
                addGauge(names, (Gauge<?>) m, task, component, null);
            } else if (m instanceof Meter) {
                add(names, (Meter) m, task, component, null, taskIdMeters, TaskMetricRepo::addMeter);
            } else if (m instanceof Counter) {
                add(names, (Counter) m, task, component, null, taskIdCounters, TaskMetricRepo::addCounter);
            } else if (m instanceof Timer) {
                add(names, (Timer) m, task, component, null, taskIdTimers, TaskMetricRepo::addTimer);
            } else if (m instanceof Histogram) {
                add(names, (Histogram) m, task, component, null, taskIdHistograms, TaskMetricRepo::addHistogram);
            } else {
                LOG.error("Metric {} named {} is not a gauge, meter, counter, timer or histogram; not registered",
                        m, names.longName);
            }
        }
    }

    /** Removes these metric objects (and a rate counter's own counter) from the registry and every task. */
    public void deregister(Set<Metric> toRemove) {
        Set<Metric> all = new HashSet<>(toRemove);
        for (Metric m : toRemove) {
            if (m instanceof RateCounter) {
                all.add(((RateCounter) m).getCounter());
                rateCounters.remove(m);
            }
        }
        MetricFilter filter = (name, metric) -> all.contains(metric);
        for (TaskMetricRepo repo : taskMetrics.values()) {
            repo.degister(filter);
        }
        for (Map<Integer, ? extends Map<String, ? extends Metric>> byTask : List.of(taskIdGauges, taskIdMeters,
                taskIdCounters, taskIdTimers, taskIdHistograms)) {
            for (Map<String, ? extends Metric> m : byTask.values()) {
                m.values().removeIf(all::contains);
            }
        }
        registry.removeMatching(filter);
    }

    public Map<String, Gauge> getTaskGauges(int taskId) {
        return copy(taskIdGauges, taskId);
    }

    public Map<String, Counter> getTaskCounters(int taskId) {
        return copy(taskIdCounters, taskId);
    }

    public Map<String, Histogram> getTaskHistograms(int taskId) {
        return copy(taskIdHistograms, taskId);
    }

    public Map<String, Meter> getTaskMeters(int taskId) {
        return copy(taskIdMeters, taskId);
    }

    public Map<String, Timer> getTaskTimers(int taskId) {
        return copy(taskIdTimers, taskId);
    }

    /**
     * Sets the worker's identity used in metric names (host, {@code storm.id} of the config, port),
     * starts the rate counters' updates and every reporter of {@code topology.metrics.reporters}.
     */
    public void start(Map<String, Object> topoConf, int port) {
        try {
            hostName = dotToUnderscore(Utils.localHostname());
        } catch (java.net.UnknownHostException | RuntimeException e) {
            LOG.warn("Unable to determine hostname while starting the metrics system. Hostname will be reported"
                    + " as 'localhost'.");
        }
        Object id = topoConf.get(Config.STORM_ID);
        if (id != null) {
            topologyId = id.toString();
        }
        this.port = port;
        synchronized (this) {
            if (rateTimer == null) {
                rateTimer = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "MetricRegistryTimer");
                    t.setDaemon(true);
                    return t;
                });
                rateTimer.scheduleAtFixedRate(this::updateRateCounters, RATE_COUNTER_UPDATE_INTERVAL_SECONDS,
                        RATE_COUNTER_UPDATE_INTERVAL_SECONDS, TimeUnit.SECONDS);
            }
        }
        Object list = topoConf.get(Config.TOPOLOGY_METRICS_REPORTERS);
        if (list == null) {
            return;
        }
        if (!(list instanceof List)) {
            LOG.error("{} must be a list of maps, each with a \"class\"; got {}: no metrics reporter started",
                    Config.TOPOLOGY_METRICS_REPORTERS, list);
            return;
        }
        LOG.info("Starting metrics reporters...");
        int index = 0;
        for (Object entry : (List<?>) list) {
            startReporter(topoConf, entry, index++);
        }
    }

    @SuppressWarnings("unchecked")
    private void startReporter(Map<String, Object> topoConf, Object entry, int index) {
        String where = Config.TOPOLOGY_METRICS_REPORTERS + "[" + index + "]";
        if (!(entry instanceof Map)) {
            LOG.error("Metrics reporter {} is not a map with a \"class\" ({}); not started", where, entry);
            return;
        }
        Map<String, Object> reporterConf = (Map<String, Object>) entry;
        Object cls = reporterConf.get("class");
        if (!(cls instanceof String) || ((String) cls).isEmpty()) {
            LOG.error("Metrics reporter {} has no \"class\" naming a StormReporter ({}); not started", where,
                    reporterConf);
            return;
        }
        String className = (String) cls;
        LOG.info("Attempting to instantiate reporter class: {}", className);
        StormReporter reporter;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> c = Class.forName(className, true, loader != null ? loader : getClass().getClassLoader());
            if (!StormReporter.class.isAssignableFrom(c)) {
                LOG.error("Metrics reporter {} ({}): \"class\" {} does not implement {}; not started", where,
                        className, className, StormReporter.class.getName());
                return;
            }
            reporter = (StormReporter) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            LOG.error("Metrics reporter {}: \"class\" {} cannot be created ({}); not started", where, className,
                    e.toString());
            return;
        }
        try {
            reporter.prepare(this, topoConf, reporterConf);
            reporter.start();
        } catch (RuntimeException | LinkageError e) {
            LOG.error("Metrics reporter {} ({}) could not start: {}; its metrics are not reported", where,
                    className, e.getMessage() == null ? e.toString() : e.getMessage(), e);
            try {
                reporter.stop();
            } catch (RuntimeException | LinkageError ignored) {
                // never prepared or started: nothing to stop
            }
            return;
        }
        synchronized (reporters) {
            reporters.add(reporter);
        }
        LOG.info("Started metrics reporter {} ({})", where, className);
    }

    /** Stops every started reporter (each reports once more if it does so on stop) and the rate updates. */
    public void stop() {
        List<StormReporter> started;
        synchronized (reporters) {
            started = new ArrayList<>(reporters);
            reporters.clear();
        }
        for (StormReporter r : started) {
            try {
                r.stop();
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Metrics reporter {} threw while stopping", r.getClass().getName(), e);
            }
        }
        synchronized (this) {
            if (rateTimer != null) {
                rateTimer.shutdownNow();
                rateTimer = null;
            }
        }
    }

    public int getRateCounterUpdateIntervalSeconds() {
        return RATE_COUNTER_UPDATE_INTERVAL_SECONDS;
    }

    @Override
    public MetricRegistry getRegistry() {
        return registry;
    }

    @Override
    public Map<TaskMetricDimensions, TaskMetricRepo> getTaskMetrics() {
        return taskMetrics;
    }

    String getHostName() {
        return hostName;
    }

    String getTopologyId() {
        return topologyId;
    }

    Integer getPort() {
        return port;
    }

    private void updateRateCounters() {
        for (RateCounter rc : rateCounters) {
            try {
                rc.update();
            } catch (RuntimeException e) {
                LOG.warn("Rate counter update failed", e);
            }
        }
    }

    private <T> Gauge<T> addGauge(Names names, Gauge<T> gauge, Integer taskId, String componentId, String streamId) {
        return add(names, gauge, taskId, componentId, streamId, taskIdGauges, TaskMetricRepo::addGauge);
    }

    private interface RepoAdd<M> {
        void add(TaskMetricRepo repo, String name, M metric);
    }

    @SuppressWarnings("unchecked")
    private <M extends Metric, K extends Metric> M add(Names names, M metric, Integer taskId, String componentId,
            String streamId, ConcurrentMap<Integer, Map<String, K>> byTask, RepoAdd<? super M> repoAdd) {
        int task = taskId == null ? -1 : taskId;
        M registered = registry.register(names.longName, metric);
        TaskMetricRepo repo = taskMetrics.computeIfAbsent(new TaskMetricDimensions(task, componentId, streamId, this),
                k -> new TaskMetricRepo());
        repoAdd.add(repo, names.shortName, registered);
        byTask.computeIfAbsent(task, k -> new ConcurrentHashMap<>()).put(names.shortName, (K) registered);
        return registered;
    }

    private static <T extends Metric> Map<String, T> copy(Map<Integer, Map<String, T>> byTask, int taskId) {
        return new HashMap<>(byTask.getOrDefault(taskId, Collections.emptyMap()));
    }

    private Names workerName(String name, String stormId, String componentId, String streamId, Integer taskId,
                             Integer workerPort) {
        StringBuilder sb = new StringBuilder(WORKER_METRIC_PREFIX).append(stormId).append('.').append(hostName)
                .append('.').append(dotToUnderscore(componentId)).append('.');
        if (streamId != null) {
            sb.append(dotToUnderscore(streamId)).append('.');
        }
        sb.append(taskId).append('.').append(workerPort).append('-').append(name);
        return new Names(sb.toString(), name);
    }

    private Names topologyName(String name, TopologyContext context) {
        String longName = TOPOLOGY_METRIC_PREFIX + context.getStormId() + '.' + hostName + '.'
                + dotToUnderscore(context.getThisComponentId()) + '.' + context.getThisTaskId() + '.'
                + context.getThisWorkerPort() + '-' + name;
        return new Names(longName, name);
    }

    private static String dotToUnderscore(String s) {
        return s == null ? "null" : s.replace('.', '_');
    }

    private static final class Names {
        final String longName;
        final String shortName;

        Names(String longName, String shortName) {
            this.longName = longName;
            this.shortName = shortName;
        }
    }
}

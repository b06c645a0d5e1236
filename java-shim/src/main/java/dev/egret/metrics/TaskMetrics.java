package dev.egret.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricSet;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one task: the v1 metrics it registered (by time bucket), its v2 (Dropwizard)
 * registry, and its exact built-in statistics.
 *
 * <p>Invariants: v1 registration is only possible until {@link #seal()} (called when the
 * task's open/prepare returned, as Storm forbids registering later), so the set of bucket
 * sizes is fixed while the task runs; a name is registered at most once, and the built-in
 * names ({@code __ack-count}, ...) are reserved. Thread-safety: registration and collection
 * run on the executor thread; the metrics themselves are the user's (Storm's v1 metrics are
 * not thread-safe either); the built-in statistics are ({@link TaskStats}).
 */
public final class TaskMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(TaskMetrics.class);

    public static final String ACK_COUNT = "__ack-count";
    public static final String FAIL_COUNT = "__fail-count";
    public static final String EMIT_COUNT = "__emit-count";
    public static final String TRANSFER_COUNT = "__transfer-count";
    public static final String EXECUTE_COUNT = "__execute-count";
    public static final String EXECUTE_LATENCY = "__execute-latency";
    public static final String PROCESS_LATENCY = "__process-latency";
    public static final String COMPLETE_LATENCY = "__complete-latency";
    private static final Set<String> BUILTIN = Set.of(ACK_COUNT, FAIL_COUNT, EMIT_COUNT, TRANSFER_COUNT,
            EXECUTE_COUNT, EXECUTE_LATENCY, PROCESS_LATENCY, COMPLETE_LATENCY);

    private final boolean spout;
    private final TaskStats stats = new TaskStats();
    private final Map<Integer, Map<String, IMetric>> byBucket = new TreeMap<>();
    private final Map<String, IMetric> byName = new LinkedHashMap<>();
    private final MetricRegistry registry = new MetricRegistry();
    private TaskStats.Cursor builtinCursor;
    /** The worker's registry and this task's context, once attached (see {@link #attach}). */
    private StormMetricRegistry worker;
    private TopologyContext context;
    private volatile boolean sealed;

    public TaskMetrics(boolean spout) {
        this.spout = spout;
    }

    public TaskStats stats() {
        return stats;
    }

    public boolean isSpout() {
        return spout;
    }

    /** Storm's registerMetric rules: in open/prepare only, a positive bucket, a new name. */
    public synchronized <T extends IMetric> T register(String name, T metric, int timeBucketSizeInSecs) {
        if (sealed) {
            throw new RuntimeException("TopologyContext.registerMetric can only be called from within"
                    + " IBolt.prepare() or ISpout.open() (metric '" + name + "')");
        }
        if (timeBucketSizeInSecs <= 0) {
            throw new IllegalArgumentException("TopologyContext.registerMetric needs a time bucket of at least"
                    + " 1 second (metric '" + name + "' asked for " + timeBucketSizeInSecs + ")");
        }
        if (name == null || metric == null) {
            throw new IllegalArgumentException("TopologyContext.registerMetric needs a name and a metric");
        }
        if (byName.containsKey(name) || BUILTIN.contains(name)) {
            throw new RuntimeException("The same metric name `" + name + "` was registered twice.");
        }
        byName.put(name, metric);
        byBucket.computeIfAbsent(timeBucketSizeInSecs, k -> new LinkedHashMap<>()).put(name, metric);
        return metric;
    }

    public synchronized IMetric get(String name) {
        return byName.get(name);
    }

    /** Ends registration (open/prepare returned) and starts the built-in bucket from now. */
    public synchronized void seal() {
        sealed = true;
        builtinCursor = stats.cursor();
    }

    /** Bucket sizes of the v1 metrics the task registered. */
    public synchronized Set<Integer> bucketSizes() {
        return new TreeSet<>(byBucket.keySet());
    }

    public MetricRegistry registry() {
        return registry;
    }

    /**
     * Registers this task's v2 metrics in the worker's registry too (full Storm names, the
     * reporters of {@code topology.metrics.reporters}) from now on: each new metric is created by
     * the worker registry for {@code context}, then kept here under its short name.
     */
    public synchronized void attach(StormMetricRegistry worker, TopologyContext context) {
        this.worker = worker;
        this.context = context;
    }

    public synchronized Counter counter(String name) {
        Counter existing = existing(name, Counter.class);
        if (existing != null) {
            return existing;
        }
        return registry.register(name, worker != null ? worker.counter(name, context) : new Counter());
    }

    public synchronized Meter meter(String name) {
        Meter existing = existing(name, Meter.class);
        if (existing != null) {
            return existing;
        }
        return registry.register(name, worker != null ? worker.meter(name, context) : new Meter());
    }

    public synchronized Histogram histogram(String name) {
        Histogram existing = existing(name, Histogram.class);
        if (existing != null) {
            return existing;
        }
        return registry.register(name, worker != null ? worker.histogram(name, context)
                : new Histogram(new ExponentiallyDecayingReservoir()));
    }

    public synchronized Timer timer(String name) {
        Timer existing = existing(name, Timer.class);
        if (existing != null) {
            return existing;
        }
        return registry.register(name, worker != null ? worker.timer(name, context) : new Timer());
    }

    /** Registers the gauge, or returns the gauge already registered under that name. */
    @SuppressWarnings("unchecked")
    public synchronized <T> Gauge<T> gauge(String name, Gauge<T> gauge) {
        Metric existing = registry.getMetrics().get(name);
        if (existing instanceof Gauge) {
            return (Gauge<T>) existing;
        }
        if (existing == null && worker != null) {
            worker.gauge(name, gauge, context);
        }
        return registry.register(name, gauge);
    }

    /** Registers every metric of the set under {@code name.<its name>} (nested sets flattened). */
    public synchronized void metricSet(String name, MetricSet set) {
        Map<String, Metric> added = new LinkedHashMap<>();
        metricSet(name, set, name, added);
        if (worker != null && !added.isEmpty()) {
            worker.metricSet(name, () -> added, context);
        }
    }

    private void metricSet(String name, MetricSet set, String top, Map<String, Metric> added) {
        for (Map.Entry<String, Metric> e : set.getMetrics().entrySet()) {
            String full = MetricRegistry.name(name, e.getKey());
            if (e.getValue() instanceof MetricSet) {
                metricSet(full, (MetricSet) e.getValue(), top, added);
            } else if (!registry.getMetrics().containsKey(full)) {
                registry.register(full, e.getValue());
                added.put(full.substring(top.length() + 1), e.getValue());
            }
        }
    }

    /** The metric already registered under that name, or null; a metric of another kind is an error. */
    private <M extends Metric> M existing(String name, Class<M> kind) {
        Metric m = registry.getMetrics().get(name);
        if (m == null) {
            return null;
        }
        if (!kind.isInstance(m)) {
            throw new IllegalArgumentException(name + " is already used for a different type of metric");
        }
        return kind.cast(m);
    }

    /** The v1 metrics of one bucket, read and reset; null values are left out, as Storm does. */
    public synchronized List<DataPoint> collect(int bucket) {
        Map<String, IMetric> metrics = byBucket.get(bucket);
        if (metrics == null) {
            return new ArrayList<>();
        }
        List<DataPoint> out = new ArrayList<>(metrics.size());
        for (Map.Entry<String, IMetric> e : metrics.entrySet()) {
            Object value;
            Map<String, String> dims;
            try {
                value = e.getValue().getValueAndReset();
                dims = e.getValue().getDimensions();
            } catch (RuntimeException ex) {
                LOG.warn("Metric {} threw from getValueAndReset; not reported this bucket", e.getKey(), ex);
                continue;
            }
            if (value != null) {
                out.add(new DataPoint(e.getKey(), value, dims));
            }
        }
        return out;
    }

    /**
     * The built-in metrics since the previous call (Storm's names and map keys): counts as
     * {@code Map<String, Long>} (every key seen so far, 0 included), mean latencies in ms as
     * {@code Map<String, Double>} (keys counted in this bucket only).
     */
    public synchronized List<DataPoint> collectBuiltins() {
        if (builtinCursor == null) {
            builtinCursor = stats.cursor();
        }
        TaskStats.Delta d = builtinCursor.next();
        List<DataPoint> out = new ArrayList<>(8);
        out.add(new DataPoint(ACK_COUNT, d.counts(TaskStats.Kind.ACKED)));
        out.add(new DataPoint(FAIL_COUNT, d.counts(TaskStats.Kind.FAILED)));
        out.add(new DataPoint(EMIT_COUNT, d.counts(TaskStats.Kind.EMITTED)));
        out.add(new DataPoint(TRANSFER_COUNT, d.counts(TaskStats.Kind.TRANSFERRED)));
        if (spout) {
            out.add(new DataPoint(COMPLETE_LATENCY, d.meanMillis(TaskStats.Kind.ACKED)));
        } else {
            out.add(new DataPoint(EXECUTE_COUNT, d.counts(TaskStats.Kind.EXECUTED)));
            out.add(new DataPoint(EXECUTE_LATENCY, d.meanMillis(TaskStats.Kind.EXECUTED)));
            out.add(new DataPoint(PROCESS_LATENCY, d.meanMillis(TaskStats.Kind.ACKED)));
        }
        return out;
    }

    /**
     * The v2 metrics as data points, as Storm reports them to v1 consumers when
     * {@code topology.enable.v2.metrics.tick} is on: gauges (numeric values only) and counters
     * under their name; histograms and timers as {@code name.count} plus their snapshot
     * ({@code .max .mean .min .stddev .p50 .p75 .p95 .p98 .p99 .p999}); meters and timers
     * with {@code .m1_rate .m5_rate .m15_rate .mean_rate}. v2 metrics are not reset.
     */
    public List<DataPoint> collectV2() {
        List<DataPoint> out = new ArrayList<>();
        for (Map.Entry<String, Metric> e : new TreeMap<>(registry.getMetrics()).entrySet()) {
            String name = e.getKey();
            Metric m = e.getValue();
            try {
                if (m instanceof Gauge) {
                    Object v = ((Gauge<?>) m).getValue();
                    if (v instanceof Number) {
                        out.add(new DataPoint(name, v));
                    } else {
                        LOG.debug("Gauge {} has a non-numeric value {}; not reported", name, v);
                    }
                } else if (m instanceof Counter) {
                    out.add(new DataPoint(name, ((Counter) m).getCount()));
                } else if (m instanceof Histogram) {
                    Histogram h = (Histogram) m;
                    out.add(new DataPoint(name + ".count", h.getCount()));
                    snapshot(name, h.getSnapshot(), out);
                } else if (m instanceof Timer) {
                    Timer t = (Timer) m;
                    out.add(new DataPoint(name + ".count", t.getCount()));
                    snapshot(name, t.getSnapshot(), out);
                    rates(name, t.getOneMinuteRate(), t.getFiveMinuteRate(), t.getFifteenMinuteRate(),
                            t.getMeanRate(), out);
                } else if (m instanceof Meter) {
                    Meter mt = (Meter) m;
                    out.add(new DataPoint(name + ".count", mt.getCount()));
                    rates(name, mt.getOneMinuteRate(), mt.getFiveMinuteRate(), mt.getFifteenMinuteRate(),
                            mt.getMeanRate(), out);
                }
            } catch (RuntimeException ex) {
                LOG.warn("Metric {} threw while being read; not reported this bucket", name, ex);
            }
        }
        return out;
    }

    private static void snapshot(String name, Snapshot s, List<DataPoint> out) {
        out.add(new DataPoint(name + ".max", s.getMax()));
        out.add(new DataPoint(name + ".mean", s.getMean()));
        out.add(new DataPoint(name + ".min", s.getMin()));
        out.add(new DataPoint(name + ".stddev", s.getStdDev()));
        out.add(new DataPoint(name + ".p50", s.getMedian()));
        out.add(new DataPoint(name + ".p75", s.get75thPercentile()));
        out.add(new DataPoint(name + ".p95", s.get95thPercentile()));
        out.add(new DataPoint(name + ".p98", s.get98thPercentile()));
        out.add(new DataPoint(name + ".p99", s.get99thPercentile()));
        out.add(new DataPoint(name + ".p999", s.get999thPercentile()));
    }

    private static void rates(String name, double m1, double m5, double m15, double mean, List<DataPoint> out) {
        out.add(new DataPoint(name + ".m1_rate", m1));
        out.add(new DataPoint(name + ".m5_rate", m5));
        out.add(new DataPoint(name + ".m15_rate", m15));
        out.add(new DataPoint(name + ".mean_rate", mean));
    }

    /** Unmodifiable view of the registered v1 names (tests, diagnostics). */
    public synchronized Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(byName.keySet()));
    }
}

package dev.egret.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metric.api.IMetricsConsumer.TaskInfo;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bolt of a metrics consumer component ({@code __metrics_<class>}, added at submission
 * for each {@code topology.metrics.consumer.register} entry). It instantiates the consumer
 * class in prepare, calls its {@code prepare(conf, argument, context, collector)}, and
 * hands each {@code __metrics} tuple's {@code (TaskInfo, Collection<DataPoint>)} to
 * {@code handleDataPoints}, after the registration's optional {@code whitelist} or
 * {@code blacklist} (regular expressions, found anywhere in the name) and
 * {@code expandMapType} (a map value becomes one point per key, named
 * {@code name<metricNameSeparator>key}, separator {@code "."} by default).
 *
 * <p>Unlike Storm, which queues the tuples for a separate thread and drops the oldest when
 * more than {@code max.retain.metric.tuples} wait, this calls the consumer on the executor
 * thread: a slow consumer slows its own input, and backpressure does the rest.
 */
public final class MetricsConsumerBolt implements IBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(MetricsConsumerBolt.class);

    private final String consumerClassName;
    private final Object registrationArgument;
    private final List<String> whitelist;
    private final List<String> blacklist;
    private final boolean expandMapType;
    private final String separator;
    private transient IMetricsConsumer consumer;
    private transient OutputCollector collector;
    private transient List<Pattern> patterns;

    public MetricsConsumerBolt(String consumerClassName, Object registrationArgument, List<String> whitelist,
                               List<String> blacklist, boolean expandMapType, String separator) {
        if (whitelist != null && !whitelist.isEmpty() && blacklist != null && !blacklist.isEmpty()) {
            throw new IllegalArgumentException("A metrics consumer registration cannot have both a whitelist and"
                    + " a blacklist (" + consumerClassName + ")");
        }
        this.consumerClassName = consumerClassName;
        this.registrationArgument = registrationArgument;
        this.whitelist = whitelist == null ? null : new ArrayList<>(whitelist);
        this.blacklist = blacklist == null ? null : new ArrayList<>(blacklist);
        this.expandMapType = expandMapType;
        this.separator = separator == null ? "." : separator;
    }

    public String consumerClassName() {
        return consumerClassName;
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.patterns = new ArrayList<>();
        List<String> list = whitelist != null && !whitelist.isEmpty() ? whitelist : blacklist;
        if (list != null) {
            for (String p : list) {
                patterns.add(Pattern.compile(p));
            }
        }
        try {
            Class<?> klass = loadClass(consumerClassName);
            consumer = (IMetricsConsumer) klass.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new RuntimeException("Could not instantiate the metrics consumer " + consumerClassName
                    + " (it must implement IMetricsConsumer and have a public no-argument constructor)", e);
        }
        consumer.prepare(topoConf, registrationArgument, context, collector);
        LOG.info("Metrics consumer {} prepared for task {}", consumerClassName, context.getThisTaskId());
    }

    /**
     * Loads by binary name; a canonical name of a nested class ({@code a.B.C}, which is what
     * {@code Config.registerMetricsConsumer} records) is retried as {@code a.B$C}.
     */
    public static Class<?> loadClass(String name) throws ClassNotFoundException {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        if (cl == null) {
            cl = MetricsConsumerBolt.class.getClassLoader();
        }
        String candidate = name;
        ClassNotFoundException first = null;
        while (true) {
            try {
                return Class.forName(candidate, true, cl);
            } catch (ClassNotFoundException e) {
                if (first == null) {
                    first = e;
                }
                int dot = candidate.lastIndexOf('.');
                if (dot < 0) {
                    throw first;
                }
                candidate = candidate.substring(0, dot) + '$' + candidate.substring(dot + 1);
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(Tuple input) {
        Object info = input.size() > 0 ? input.getValue(0) : null;
        Object points = input.size() > 1 ? input.getValue(1) : null;
        if (info instanceof TaskInfo && points instanceof Collection) {
            Collection<DataPoint> selected = select((Collection<DataPoint>) points);
            if (!selected.isEmpty()) {
                consumer.handleDataPoints((TaskInfo) info, selected);
            }
        } else {
            LOG.warn("Metrics consumer {} ignores a tuple from {}:{} on {} that is not (TaskInfo, data points)",
                    consumerClassName, input.getSourceComponent(), input.getSourceTask(), input.getSourceStreamId());
        }
        collector.ack(input);
    }

    private Collection<DataPoint> select(Collection<DataPoint> points) {
        if (patterns.isEmpty() && !expandMapType) {
            return points;
        }
        boolean white = whitelist != null && !whitelist.isEmpty();
        List<DataPoint> out = new ArrayList<>(points.size());
        for (DataPoint p : points) {
            if (!patterns.isEmpty() && matches(p.name) != white) {
                continue;
            }
            if (expandMapType && p.value instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) p.value).entrySet()) {
                    out.add(new DataPoint(p.name + separator + e.getKey(), e.getValue(), p.dimensions));
                }
            } else {
                out.add(p);
            }
        }
        return out;
    }

    private boolean matches(String name) {
        for (Pattern p : patterns) {
            if (name != null && p.matcher(name).find()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void cleanup() {
        if (consumer != null) {
            consumer.cleanup();
        }
    }
}

package dev.egret.instance;

import dev.egret.metrics.SystemMetrics;
import dev.egret.metrics.TaskMetrics;
import dev.egret.metrics.TaskStats;
import dev.egret.proto.StatsReport;
import dev.egret.proto.TaskStatsDelta;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Constants;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metric.api.IMetricsConsumer.TaskInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics side of one executor, driven by the executor thread with the time it passes in.
 *
 * <p><b>Buckets</b> (only when a metrics consumer subscribes to this component's
 * {@code __metrics} stream): for every bucket size in use (the tasks' {@code registerMetric}
 * sizes, {@code topology.builtin.metrics.bucket.size.secs} for the built-ins, and
 * {@code topology.v2.metrics.tick.interval.seconds} when {@code topology.enable.v2.metrics.tick}
 * is on), every that many seconds from the executor's start, each task reads and resets the
 * metrics of the bucket and emits one unanchored tuple {@code (TaskInfo, List<DataPoint>)}
 * on {@code __metrics} when it has any data point, as Storm's executor does.
 *
 * <p><b>Worker metrics</b>: an instance JVM is Egret's worker, so with consumers it also
 * reports what Storm's system bolt reports for a worker ({@link SystemMetrics}: uptime,
 * memory, GC, CPU, ...) every {@code topology.builtin.metrics.bucket.size.secs}, as task
 * info {@code __system}/-1 emitted by its first task.
 *
 * <p><b>Stats reports</b>: every {@code egret.stats.interval.secs} (default 5) the exact
 * built-in statistics of every task since the previous report go to the stream manager as
 * one {@code StatsReport} (only the tasks with something new; nothing when nothing
 * changed). A report that cannot be written (no connection) is kept and merged into the
 * next one, so the sums the topology master sees stay exact across reconnects.
 */
final class ExecutorMetrics {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");

    /** One task: its metrics, its emitter (for the __metrics tuples) and its stats-report cursor. */
    static final class TaskEntry {
        final int taskId;
        final TaskMetrics metrics;
        final TaskEmitter emitter;
        TaskStats.Cursor reportCursor;

        TaskEntry(int taskId, TaskMetrics metrics, TaskEmitter emitter) {
            this.taskId = taskId;
            this.metrics = metrics;
            this.emitter = emitter;
        }
    }

    private final String instanceId;
    private final String component;
    private final boolean spout;
    private final OutboundSink sink;
    private final List<TaskEntry> tasks = new ArrayList<>();
    private final boolean consumers;
    private final int builtinBucketSecs;
    /** 0 when v2 metrics are not reported to consumers. */
    private final int v2BucketSecs;
    private final long statsIntervalNanos;
    private final String host;
    private final int port;
    /** Bucket size (s) to its next due time (nanoTime). */
    private final TreeMap<Integer, Long> nextBucketAt = new TreeMap<>();
    private long nextStatsAt = Long.MAX_VALUE;
    /** This JVM's worker metrics; null without consumers. */
    private SystemMetrics system;
    /** Deltas not yet delivered to the stream manager, by task. */
    private final Map<Integer, TaskStatsDelta> unsent = new LinkedHashMap<>();
    /** Whether a report (even an empty one) has reached the stream manager. */
    private boolean announced;

    private final Map<String, Object> topoConf;

    ExecutorMetrics(String instanceId, String component, boolean spout, OutboundSink sink, boolean consumers,
                    Map<String, Object> topoConf, int port) {
        this.topoConf = topoConf;
        this.instanceId = instanceId;
        this.component = component;
        this.spout = spout;
        this.sink = sink;
        this.consumers = consumers;
        this.builtinBucketSecs = Math.max(1, InstanceExecutor.intConf(topoConf,
                "topology.builtin.metrics.bucket.size.secs", 60));
        this.v2BucketSecs = InstanceExecutor.isTrue(topoConf.get("topology.enable.v2.metrics.tick"))
                ? Math.max(1, InstanceExecutor.intConf(topoConf, "topology.v2.metrics.tick.interval.seconds", 60)) : 0;
        int statsSecs = InstanceExecutor.intConf(topoConf, "egret.stats.interval.secs", 5);
        this.statsIntervalNanos = statsSecs > 0 ? TimeUnit.SECONDS.toNanos(statsSecs) : 0L;
        this.host = hostname();
        this.port = port;
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }

    void add(TaskEntry t) {
        tasks.add(t);
    }

    /** Every task has been opened/prepared (registrations are final): the clocks start. */
    void start(long now) {
        for (TaskEntry t : tasks) {
            t.metrics.seal();
            t.reportCursor = t.metrics.stats().cursor();
        }
        if (consumers) {
            List<Integer> sizes = new ArrayList<>();
            sizes.add(builtinBucketSecs);
            if (v2BucketSecs > 0) {
                sizes.add(v2BucketSecs);
            }
            for (TaskEntry t : tasks) {
                sizes.addAll(t.metrics.bucketSizes());
            }
            for (int s : sizes) {
                nextBucketAt.putIfAbsent(s, now + TimeUnit.SECONDS.toNanos(s));
            }
            if (!tasks.isEmpty()) {
                system = new SystemMetrics(topoConf);
            }
            LOG.info("Metrics of {} go to the metrics consumers every {} s (buckets)", component,
                    nextBucketAt.keySet());
        }
        if (statsIntervalNanos > 0) {
            // The first report goes out at once, empty if need be: the master then
            // has statistics for every executor from the start, as Nimbus does,
            // even for one that gets throttled before its first interval ends.
            nextStatsAt = now;
        }
    }

    /** The next time {@link #tick} has work (nanoTime), or {@code Long.MAX_VALUE}. */
    long nextDeadline() {
        long d = nextStatsAt;
        for (long at : nextBucketAt.values()) {
            d = Math.min(d, at);
        }
        return d;
    }

    /** Runs what is due at {@code now}. */
    void tick(long now) {
        for (Map.Entry<Integer, Long> e : nextBucketAt.entrySet()) {
            if (now - e.getValue() >= 0) {
                long period = TimeUnit.SECONDS.toNanos(e.getKey());
                long next = e.getValue() + period;
                // Skip missed buckets rather than firing a burst.
                e.setValue(now - next >= 0 ? now + period : next);
                emitBucket(e.getKey());
            }
        }
        if (now - nextStatsAt >= 0) {
            long next = nextStatsAt + statsIntervalNanos;
            nextStatsAt = now - next >= 0 ? now + statsIntervalNanos : next;
            report();
        }
    }

    /** Reads the metrics of one bucket size for every task and emits them on __metrics. */
    void emitBucket(int bucketSecs) {
        long timestampSecs = System.currentTimeMillis() / 1000;
        for (TaskEntry t : tasks) {
            List<DataPoint> points = new ArrayList<>();
            if (bucketSecs == builtinBucketSecs) {
                points.addAll(t.metrics.collectBuiltins());
            }
            points.addAll(t.metrics.collect(bucketSecs));
            if (bucketSecs == v2BucketSecs) {
                points.addAll(t.metrics.collectV2());
            }
            if (points.isEmpty()) {
                continue;
            }
            TaskInfo info = new TaskInfo(host, port, component, t.taskId, timestampSecs, bucketSecs);
            List<Object> values = new ArrayList<>(2);
            values.add(info);
            values.add(points);
            try {
                t.emitter.emitSystem(Constants.METRICS_STREAM_ID, values);
            } catch (RuntimeException e) {
                LOG.warn("Could not send the metrics of {}:{} to the consumers: {}", component, t.taskId,
                        e.toString());
            }
        }
        if (system != null && bucketSecs == builtinBucketSecs) {
            emitSystem(timestampSecs, bucketSecs);
        }
    }

    /** The worker metrics of this JVM, as Storm's system bolt of the worker reports them. */
    private void emitSystem(long timestampSecs, int bucketSecs) {
        List<DataPoint> points = system.collect();
        if (points.isEmpty()) {
            return;
        }
        TaskInfo info = new TaskInfo(host, port, SystemMetrics.COMPONENT, SystemMetrics.TASK_ID, timestampSecs,
                bucketSecs);
        List<Object> values = new ArrayList<>(2);
        values.add(info);
        values.add(points);
        TaskEntry first = tasks.get(0);
        try {
            first.emitter.emitSystem(Constants.METRICS_STREAM_ID, values);
        } catch (RuntimeException e) {
            LOG.warn("Could not send the worker metrics of {} to the consumers: {}", component, e.toString());
        }
    }

    /** Sends the statistics since the previous report (plus whatever could not be sent before). */
    void report() {
        // Every interval, even with nothing new: the UI's heap and GC series (stale figures are not kept).
        sink.sendJvm(jvmStats());
        for (TaskEntry t : tasks) {
            TaskStats.Delta d = t.reportCursor.next();
            if (!d.isEmpty()) {
                unsent.merge(t.taskId, d.toProto(t.taskId, spout), ExecutorMetrics::merge);
            }
        }
        if (unsent.isEmpty() && announced) {
            return;
        }
        StatsReport report = StatsReport.newBuilder().setTimestampMs(System.currentTimeMillis())
                .setInstanceId(instanceId).addAllTasks(unsent.values()).build();
        if (sink.sendStats(report)) {
            unsent.clear();
            announced = true;
        }
    }

    /** This JVM's heap now and its collections so far (Storm's memory/heap and GC metrics). */
    static dev.egret.proto.JvmStats jvmStats() {
        java.lang.management.MemoryUsage heap =
                java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long count = 0;
        long timeMs = 0;
        for (java.lang.management.GarbageCollectorMXBean gc
                : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            // -1: not available for this collector.
            count += Math.max(0, gc.getCollectionCount());
            timeMs += Math.max(0, gc.getCollectionTime());
        }
        return dev.egret.proto.JvmStats.newBuilder().setHeapUsedBytes(Math.max(0, heap.getUsed()))
                .setHeapCommittedBytes(Math.max(0, heap.getCommitted())).setGcCount(count).setGcTimeMs(timeMs)
                .build();
    }

    /** Sums two deltas of the same task. */
    static TaskStatsDelta merge(TaskStatsDelta a, TaskStatsDelta b) {
        TaskStatsDelta.Builder m = a.toBuilder();
        b.getEmittedMap().forEach((k, v) -> m.putEmitted(k, m.getEmittedOrDefault(k, 0) + v));
        b.getTransferredMap().forEach((k, v) -> m.putTransferred(k, m.getTransferredOrDefault(k, 0) + v));
        b.getAckedMap().forEach((k, v) -> m.putAcked(k, m.getAckedOrDefault(k, 0) + v));
        b.getFailedMap().forEach((k, v) -> m.putFailed(k, m.getFailedOrDefault(k, 0) + v));
        b.getExecutedMap().forEach((k, v) -> m.putExecuted(k, m.getExecutedOrDefault(k, 0) + v));
        b.getExecuteMsSumMap().forEach((k, v) -> m.putExecuteMsSum(k, m.getExecuteMsSumOrDefault(k, 0) + v));
        b.getProcessMsSumMap().forEach((k, v) -> m.putProcessMsSum(k, m.getProcessMsSumOrDefault(k, 0) + v));
        b.getCompleteMsSumMap().forEach((k, v) -> m.putCompleteMsSum(k, m.getCompleteMsSumOrDefault(k, 0) + v));
        return m.build();
    }
}

package dev.egret.metrics;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker metrics Storm's system bolt ({@code __system}, task -1) registers, for one
 * instance JVM (Egret's worker): {@code uptimeSecs}, {@code startTimeSecs},
 * {@code newWorkerEvent}, {@code memory/heap}, {@code memory/nonHeap}, one
 * {@code GC/<collector>} per garbage collector (name without non-word characters), and
 * {@code CPU}, with Storm's value shapes (the memory maps' {@code usedBytes} etc., the GC
 * deltas {@code count}/{@code timeMs}, the CPU deltas {@code user-ms}/{@code sys-ms} that
 * storm-metrics' CPUMetric reports and storm-loadgen reads), plus the user's
 * {@code topology.worker.metrics} and {@code worker.metrics} (name to IMetric class).
 *
 * <p>As in Storm, a metric whose value is null (a GC collector's first bucket) gives no
 * data point. Collected on the executor thread only.
 */
public final class SystemMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(SystemMetrics.class);

    /** Storm's system component and task id. */
    public static final String COMPONENT = "__system";
    public static final int TASK_ID = -1;

    private final Map<String, IMetric> metrics = new LinkedHashMap<>();

    public SystemMetrics(Map<String, Object> topoConf) {
        RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
        metrics.put("uptimeSecs", () -> rt.getUptime() / 1000.0);
        metrics.put("startTimeSecs", () -> rt.getStartTime() / 1000.0);
        metrics.put("newWorkerEvent", new NewWorkerEvent());
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        metrics.put("memory/heap", new MemoryUsageMetric(mem::getHeapMemoryUsage));
        metrics.put("memory/nonHeap", new MemoryUsageMetric(mem::getNonHeapMemoryUsage));
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            metrics.put("GC/" + gc.getName().replaceAll("\\W", ""), new GarbageCollectorMetric(gc));
        }
        metrics.put("CPU", new CpuMetric());
        // worker.metrics is the cluster's list (Storm's defaults name storm-server's cgroup
        // metrics, absent here): missing classes there are not the topology's fault.
        addUserMetrics(topoConf.get("worker.metrics"), false);
        addUserMetrics(topoConf.get("topology.worker.metrics"), true);
    }

    /** Storm's worker.metrics / topology.worker.metrics: name to an IMetric class with a no-arg constructor. */
    private void addUserMetrics(Object conf, boolean topologyLevel) {
        if (!(conf instanceof Map)) {
            return;
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) conf).entrySet()) {
            String name = String.valueOf(e.getKey());
            String className = String.valueOf(e.getValue());
            try {
                ClassLoader cl = Thread.currentThread().getContextClassLoader();
                Class<?> c = Class.forName(className, true, cl != null ? cl : SystemMetrics.class.getClassLoader());
                metrics.put(name, (IMetric) c.getConstructor().newInstance());
            } catch (ReflectiveOperationException | LinkageError | ClassCastException ex) {
                if (metrics.containsKey(name)) {
                    // e.g. storm-loadgen's "CPU" -> sigar CPUMetric: the built-in one has the same shape.
                    LOG.info("Worker metric {} keeps Egret's built-in implementation ({} is not available: {})",
                            name, className, ex.toString());
                } else if (!topologyLevel) {
                    LOG.debug("Cluster worker metric {} is not available here: {}", name, className);
                } else {
                    LOG.warn("Worker metric {} is not reported: {} could not be instantiated: {}", name, className,
                            ex.toString());
                }
            }
        }
    }

    /** Reads and resets every metric; null values give no data point. */
    public List<DataPoint> collect() {
        List<DataPoint> points = new ArrayList<>(metrics.size());
        for (Map.Entry<String, IMetric> e : metrics.entrySet()) {
            Object v;
            try {
                v = e.getValue().getValueAndReset();
            } catch (RuntimeException ex) {
                LOG.warn("Worker metric {} threw from getValueAndReset: {}", e.getKey(), ex.toString());
                continue;
            }
            if (v != null) {
                points.add(new DataPoint(e.getKey(), v));
            }
        }
        return points;
    }

    /** 1 in the first bucket of the worker, 0 after. */
    static final class NewWorkerEvent implements IMetric {
        private boolean first = true;

        @Override
        public Object getValueAndReset() {
            if (first) {
                first = false;
                return 1;
            }
            return 0;
        }
    }

    /** A memory pool's usage as Storm's map of byte counts. */
    static final class MemoryUsageMetric implements IMetric {
        private final Supplier<MemoryUsage> usage;

        MemoryUsageMetric(Supplier<MemoryUsage> usage) {
            this.usage = usage;
        }

        @Override
        public Object getValueAndReset() {
            MemoryUsage u = usage.get();
            Map<String, Object> m = new HashMap<>();
            m.put("maxBytes", u.getMax());
            m.put("committedBytes", u.getCommitted());
            m.put("initBytes", u.getInit());
            m.put("usedBytes", u.getUsed());
            m.put("virtualFreeBytes", u.getMax() - u.getUsed());
            m.put("unusedBytes", u.getCommitted() - u.getUsed());
            return m;
        }
    }

    /** Collections and collection time since the previous bucket; null in the first one (Storm's shape). */
    static final class GarbageCollectorMetric implements IMetric {
        private final GarbageCollectorMXBean gc;
        private Long count;
        private Long timeMs;

        GarbageCollectorMetric(GarbageCollectorMXBean gc) {
            this.gc = gc;
        }

        @Override
        public Object getValueAndReset() {
            long c = gc.getCollectionCount();
            long t = gc.getCollectionTime();
            Map<String, Long> ret = null;
            if (count != null && timeMs != null) {
                ret = new HashMap<>();
                ret.put("count", c - count);
                ret.put("timeMs", t - timeMs);
            }
            count = c;
            timeMs = t;
            return ret;
        }
    }

    /**
     * CPU time of this JVM since the previous bucket, split into user and system ms as
     * storm-metrics' CPUMetric reports it. On Linux from /proc/self/stat; elsewhere the
     * JVM's total process CPU time counts as user time.
     */
    static final class CpuMetric implements IMetric {
        private static final Path PROC_STAT = Paths.get("/proc/self/stat");
        /** USER_HZ: the kernel reports utime/stime in these ticks; 100 on every mainstream Linux. */
        private static final long TICKS_PER_SEC = 100;
        private long prevUserMs;
        private long prevSysMs;

        CpuMetric() {
            long[] now = read();
            prevUserMs = now[0];
            prevSysMs = now[1];
        }

        @Override
        public Object getValueAndReset() {
            long[] now = read();
            Map<String, Long> ret = new HashMap<>();
            ret.put("user-ms", now[0] - prevUserMs);
            ret.put("sys-ms", now[1] - prevSysMs);
            prevUserMs = now[0];
            prevSysMs = now[1];
            return ret;
        }

        /** {user ms, sys ms} since the JVM started. */
        static long[] read() {
            if (Files.isReadable(PROC_STAT)) {
                try {
                    String stat = new String(Files.readAllBytes(PROC_STAT), StandardCharsets.US_ASCII);
                    // The command name (field 2) may hold spaces: fields are counted after its ')'.
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                    // After ')': state is field 3, utime field 14 and stime field 15 (so indexes 11 and 12).
                    long utime = Long.parseLong(f[11]);
                    long stime = Long.parseLong(f[12]);
                    return new long[] {utime * 1000 / TICKS_PER_SEC, stime * 1000 / TICKS_PER_SEC};
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Could not read {}: {}", PROC_STAT, e.toString());
                }
            }
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean) {
                long nanos = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
                if (nanos >= 0) {
                    return new long[] {nanos / 1_000_000L, 0L};
                }
            }
            return new long[] {0L, 0L};
        }
    }
}

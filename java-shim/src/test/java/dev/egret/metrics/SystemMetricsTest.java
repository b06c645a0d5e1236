package dev.egret.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.junit.jupiter.api.Test;

class SystemMetricsTest {
    private static Map<String, Object> byName(List<DataPoint> points) {
        Map<String, Object> m = new HashMap<>();
        for (DataPoint p : points) {
            m.put(p.name, p.value);
        }
        return m;
    }

    @Test
    void reportsStormsWorkerMetricsWithTheirShapes() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("topology.worker.metrics", Map.of("CPU", "org.apache.storm.metrics.sigar.CPUMetric",
                "nope", "no.such.Metric"));
        SystemMetrics sm = new SystemMetrics(conf);
        Map<String, Object> first = byName(sm.collect());
        assertEquals(1, first.get("newWorkerEvent"));
        assertTrue((Double) first.get("uptimeSecs") >= 0);
        assertTrue(first.get("startTimeSecs") instanceof Double);
        Map<?, ?> heap = (Map<?, ?>) first.get("memory/heap");
        assertTrue(((Long) heap.get("usedBytes")) > 0);
        assertTrue(heap.keySet().containsAll(List.of("maxBytes", "committedBytes", "initBytes", "virtualFreeBytes",
                "unusedBytes")));
        assertTrue(first.get("memory/nonHeap") instanceof Map);
        Map<?, ?> cpu = (Map<?, ?>) first.get("CPU");
        assertTrue(cpu.containsKey("user-ms") && cpu.containsKey("sys-ms"));
        // GC deltas start with the second bucket, as Storm's.
        assertTrue(first.keySet().stream().noneMatch(k -> k.startsWith("GC/")));
        assertTrue(!first.containsKey("nope"));
        System.gc();
        Map<String, Object> second = byName(sm.collect());
        assertEquals(0, second.get("newWorkerEvent"));
        List<String> gcs = second.keySet().stream().filter(k -> k.startsWith("GC/")).toList();
        assertTrue(!gcs.isEmpty(), second.toString());
        long collections = 0;
        for (String gc : gcs) {
            Map<?, ?> v = (Map<?, ?>) second.get(gc);
            assertTrue(v.containsKey("timeMs"));
            collections += (Long) v.get("count");
        }
        assertTrue(collections >= 1, second.toString());
        long[] cpuNow = SystemMetrics.CpuMetric.read();
        assertTrue(cpuNow[0] + cpuNow[1] > 0);
    }
}

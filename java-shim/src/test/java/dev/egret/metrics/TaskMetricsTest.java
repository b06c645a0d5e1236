package dev.egret.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricSet;
import dev.egret.proto.TaskStatsDelta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.metric.api.CountMetric;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.junit.jupiter.api.Test;

/** Registration rules, bucket collection, v2 registrations and the exact built-in statistics. */
class TaskMetricsTest {

    private static Map<String, Object> byName(List<DataPoint> points) {
        Map<String, Object> m = new HashMap<>();
        for (DataPoint p : points) {
            m.put(p.name, p.value);
        }
        return m;
    }

    @Test
    void v1RegistrationFollowsStormsRules() {
        TaskMetrics m = new TaskMetrics(false);
        CountMetric c = m.register("c", new CountMetric(), 10);
        assertSame(c, m.get("c"));
        assertThrows(RuntimeException.class, () -> m.register("c", new CountMetric(), 10), "duplicate");
        assertThrows(RuntimeException.class, () -> m.register("__ack-count", new CountMetric(), 10), "built-in");
        assertThrows(IllegalArgumentException.class, () -> m.register("z", new CountMetric(), 0));
        m.register("d", new CountMetric(), 5);
        assertEquals(Set.of(5, 10), m.bucketSizes());
        m.seal();
        assertThrows(RuntimeException.class, () -> m.register("late", new CountMetric(), 10),
                "only in open/prepare");

        c.incrBy(7);
        assertEquals(List.of(new DataPoint("c", 7L)), m.collect(10));
        assertEquals(List.of(new DataPoint("c", 0L)), m.collect(10));
        assertEquals(List.of(), m.collect(3));
    }

    @Test
    void nullValuesAreNotReported() {
        TaskMetrics m = new TaskMetrics(false);
        m.register("n", () -> null, 1);
        m.register("v", () -> 1, 1);
        assertEquals(List.of(new DataPoint("v", 1)), m.collect(1));
    }

    @Test
    void v2RegistrationsReturnDropwizardMetricsAndReportAsStormDoes() {
        TaskMetrics m = new TaskMetrics(false);
        Counter c = m.counter("requests");
        assertSame(c, m.counter("requests"), "get-or-create, as Storm's registry");
        c.inc(3);
        Gauge<Integer> g = () -> 42;
        assertSame(g, m.gauge("answer", g));
        assertSame(g, m.gauge("answer", () -> 0), "the first gauge stays");
        m.gauge("text", () -> "not a number");
        m.histogram("sizes").update(10);
        m.meter("rate").mark(2);
        m.timer("latency").update(java.time.Duration.ofMillis(5));
        m.metricSet("set", () -> Map.<String, Metric>of("inner", (Gauge<Long>) () -> 7L));

        Map<String, Object> v2 = byName(m.collectV2());
        assertEquals(3L, v2.get("requests"));
        assertEquals(42, v2.get("answer"));
        assertFalse(v2.containsKey("text"), "non-numeric gauges are skipped");
        assertEquals(7L, v2.get("set.inner"));
        assertEquals(1L, v2.get("sizes.count"));
        assertEquals(10L, v2.get("sizes.max"));
        for (String s : List.of("mean", "min", "stddev", "p50", "p75", "p95", "p98", "p99", "p999")) {
            assertTrue(v2.containsKey("sizes." + s), s);
            assertTrue(v2.containsKey("latency." + s), s);
        }
        assertEquals(2L, v2.get("rate.count"));
        for (String s : List.of("m1_rate", "m5_rate", "m15_rate", "mean_rate")) {
            assertTrue(v2.containsKey("rate." + s), s);
            assertTrue(v2.containsKey("latency." + s), s);
        }
        assertEquals(1L, v2.get("latency.count"));
        assertEquals(3L, byName(m.collectV2()).get("requests"), "v2 metrics are not reset");
    }

    @Test
    void nestedMetricSetsAreFlattened() {
        TaskMetrics m = new TaskMetrics(false);
        MetricSet inner = () -> Map.of("x", (Gauge<Integer>) () -> 1);
        m.metricSet("outer", () -> Map.of("inner", inner));
        assertEquals(Set.of("outer.inner.x"), m.registry().getMetrics().keySet());
    }

    @Test
    void boltBuiltinsHaveStormsNamesAndKeys() {
        TaskMetrics m = new TaskMetrics(false);
        m.seal();
        TaskStats s = m.stats();
        String in = s.inputKey("spout", "default");
        assertEquals("spout:default", in);
        assertSame(in, s.inputKey("spout", "default"), "cached");
        s.boltExecuted(in, 2_000_000);
        s.boltExecuted(in, 4_000_000);
        s.boltAcked(in, 6_000_000);
        s.boltFailed(in);
        s.emitted("out", 3);
        s.emitted("out", 0);

        Map<String, Object> b = byName(m.collectBuiltins());
        assertEquals(Set.of("__ack-count", "__fail-count", "__emit-count", "__transfer-count", "__execute-count",
                "__execute-latency", "__process-latency"), b.keySet());
        assertEquals(Map.of("spout:default", 2L), b.get("__execute-count"));
        assertEquals(Map.of("spout:default", 3.0), b.get("__execute-latency"));
        assertEquals(Map.of("spout:default", 1L), b.get("__ack-count"));
        assertEquals(Map.of("spout:default", 6.0), b.get("__process-latency"));
        assertEquals(Map.of("spout:default", 1L), b.get("__fail-count"));
        assertEquals(Map.of("out", 2L), b.get("__emit-count"));
        assertEquals(Map.of("out", 3L), b.get("__transfer-count"));

        Map<String, Object> next = byName(m.collectBuiltins());
        assertEquals(Map.of("spout:default", 0L), next.get("__execute-count"), "counts keep their keys");
        assertEquals(Map.of(), next.get("__execute-latency"), "latencies only for keys counted in the bucket");
    }

    @Test
    void spoutBuiltinsAndStatsDeltasAreIndependentAndExact() {
        TaskMetrics m = new TaskMetrics(true);
        m.seal();
        TaskStats s = m.stats();
        TaskStats.Cursor report = s.cursor();
        s.emitted("default", 2);
        s.spoutAcked("default", 10_000_000);
        s.spoutAcked("default", 20_000_000);
        s.spoutFailed("default");

        Map<String, Object> b = byName(m.collectBuiltins());
        assertEquals(Map.of("default", 15.0), b.get("__complete-latency"));
        assertFalse(b.containsKey("__execute-count"));

        s.emitted("default", 2);
        TaskStatsDelta d = report.next().toProto(9, true);
        assertEquals(9, d.getTaskId());
        assertEquals(Map.of("default", 2L), d.getEmittedMap(), "the bucket's read does not disturb the report");
        assertEquals(Map.of("default", 4L), d.getTransferredMap());
        assertEquals(Map.of("default", 2L), d.getAckedMap());
        assertEquals(Map.of("default", 1L), d.getFailedMap());
        assertEquals(30.0, d.getCompleteMsSumMap().get("default"), 1e-9);
        assertTrue(d.getProcessMsSumMap().isEmpty());
        assertTrue(report.next().isEmpty(), "nothing new since");
        assertEquals(Map.of("default", 1L), byName(m.collectBuiltins()).get("__emit-count"));
    }
}

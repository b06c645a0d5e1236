package dev.egret.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.apache.storm.metric.api.AssignableMetric;
import org.apache.storm.metric.api.CombinedMetric;
import org.apache.storm.metric.api.CountMetric;
import org.apache.storm.metric.api.ICombiner;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metric.api.IMetricsConsumer.TaskInfo;
import org.apache.storm.metric.api.MeanReducer;
import org.apache.storm.metric.api.MultiCountMetric;
import org.apache.storm.metric.api.MultiReducedMetric;
import org.apache.storm.metric.api.ReducedMetric;
import org.junit.jupiter.api.Test;

/** The v1 metric types: values per bucket and reset semantics. */
class MetricTypesTest {

    @Test
    void countMetricSumsAndResets() {
        CountMetric c = new CountMetric();
        c.incr();
        c.incrBy(41);
        assertEquals(42L, c.getValueAndReset());
        assertEquals(0L, c.getValueAndReset());
    }

    @Test
    void multiCountMetricKeepsKeysWithZero() {
        MultiCountMetric m = new MultiCountMetric();
        m.scope("a").incr();
        m.scope("b").incrBy(3);
        m.scope("a").incr();
        assertEquals(Map.of("a", 2L, "b", 3L), m.getValueAndReset());
        assertEquals(Map.of("a", 0L, "b", 0L), m.getValueAndReset());
    }

    @Test
    void reducedMetricWithMeanReducer() {
        ReducedMetric r = new ReducedMetric(new MeanReducer());
        assertNull(r.getValueAndReset(), "no value: null (not reported)");
        r.update(1);
        r.update(2L);
        r.update(6.0);
        assertEquals(3.0, r.getValueAndReset());
        assertNull(r.getValueAndReset());
        assertThrows(RuntimeException.class, () -> r.update("x"));
    }

    @Test
    void multiReducedMetricLeavesOutEmptyKeys() {
        MultiReducedMetric m = new MultiReducedMetric(new MeanReducer());
        m.scope("a").update(2);
        m.scope("a").update(4);
        m.scope("b");
        assertEquals(Map.of("a", 3.0), m.getValueAndReset());
        assertEquals(Map.of(), m.getValueAndReset());
    }

    @Test
    void combinedMetricCombinesFromTheIdentity() {
        CombinedMetric max = new CombinedMetric(new ICombiner<Long>() {
            @Override
            public Long identity() {
                return Long.MIN_VALUE;
            }

            @Override
            public Long combine(Long a, Long b) {
                return Math.max(a, b);
            }
        });
        max.update(3L);
        max.update(9L);
        max.update(4L);
        assertEquals(9L, max.getValueAndReset());
        assertEquals(Long.MIN_VALUE, max.getValueAndReset());
    }

    @Test
    void assignableMetricKeepsItsValue() {
        AssignableMetric a = new AssignableMetric(5);
        assertEquals(5, a.getValueAndReset());
        a.setValue("x");
        assertEquals("x", a.getValueAndReset());
        assertEquals("x", a.getValueAndReset());
    }

    @Test
    void dataPointsCompareByValue() {
        assertEquals(new DataPoint("n", 1L), new DataPoint("n", 1L, null));
        assertEquals(Map.of(), new DataPoint("n", 1L).dimensions);
        TaskInfo info = new TaskInfo("h", 0, "c", 3, 1000L, 60);
        assertEquals("c", info.srcComponentId);
        assertEquals(60, info.updateIntervalSecs);
    }

    @Test
    void loggingConsumerLineHasStormsLayout() {
        String header = String.format("%d\t%15s:%-4d\t%3d:%-11s\t", 1700000000L, "host", 0, 7, "split");
        String line = org.apache.storm.metric.LoggingMetricsConsumerLine.of(header, new DataPoint("__ack-count",
                Map.of("spout:default", 3L)));
        assertEquals("1700000000\t           host:0   \t  7:split      \t__ack-count            \t{spout:default=3}",
                line);
        String longName = org.apache.storm.metric.LoggingMetricsConsumerLine.of(header,
                new DataPoint("a-very-long-metric-name-indeed", 1));
        assertEquals(header + "a-very-long-metric-name\t1", longName);
    }
}

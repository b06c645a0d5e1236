package org.apache.storm.metrics2.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Counter;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.metrics2.reporters.ScheduledStormReporter;
import org.junit.jupiter.api.Test;

/** The regex filter (whole-name match) and how a reporter's config names a filter. */
class RegexFilterTest {
    @Test
    void matchesTheWholeName() {
        RegexFilter f = new RegexFilter();
        f.prepare(Map.of("expression", ".*-processed"));
        assertTrue(f.matches("storm.topology.t-1.host.count.3.0-processed", new Counter()));
        assertFalse(f.matches("storm.topology.t-1.host.count.3.0-processed.rate", new Counter()),
                "matches() is a whole-name match, not find()");
    }

    @Test
    void needsAnExpression() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new RegexFilter().prepare(Map.of()));
        assertTrue(e.getMessage().contains("'expression'"), e.getMessage());
    }

    @Test
    void aReporterConfigNamesItsFilterClass() {
        Map<String, Object> filter = new HashMap<>();
        filter.put("class", RegexFilter.class.getName());
        filter.put("expression", "a.*");
        StormMetricsFilter f = ScheduledStormReporter.getMetricsFilter(Map.of("filter", filter));
        assertTrue(f.matches("abc", new Counter()));
        assertFalse(f.matches("bc", new Counter()));
        assertEquals(null, ScheduledStormReporter.getMetricsFilter(Map.of()));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ScheduledStormReporter.getMetricsFilter(Map.of("filter", Map.of("class", "no.such.Filter"))));
        assertTrue(bad.getMessage().contains("no.such.Filter"), bad.getMessage());
    }
}

package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.ScheduledReporter;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.metrics2.filters.StormMetricsFilter;

/**
 * A reporter that reports every {@code report.period} (default 10) {@code report.period.units}
 * (a {@link TimeUnit} name, default {@code SECONDS}); subclasses build {@link #reporter} in
 * prepare. Optional {@code filter: {class: <StormMetricsFilter>, ...}} selects the metrics.
 */
public abstract class ScheduledStormReporter implements StormReporter {
    protected ScheduledReporter reporter;
    protected long reportingPeriod;
    protected TimeUnit reportingPeriodUnit;

    public ScheduledStormReporter() {
    }

    public static TimeUnit getReportPeriodUnit(Map<String, Object> reporterConf) {
        TimeUnit unit = ReporterKeys.timeUnit(reporterConf, REPORT_PERIOD_UNITS);
        return unit == null ? TimeUnit.SECONDS : unit;
    }

    public static long getReportPeriod(Map<String, Object> reporterConf) {
        Object v = reporterConf.get(REPORT_PERIOD);
        if (v == null) {
            return 10L;
        }
        long period;
        if (v instanceof Number && ((Number) v).doubleValue() == ((Number) v).longValue()) {
            period = ((Number) v).longValue();
        } else {
            try {
                period = Long.parseLong(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(REPORT_PERIOD + " must be a whole number; got '" + v + "'", e);
            }
        }
        if (period <= 0) {
            throw new IllegalArgumentException(REPORT_PERIOD + " must be positive; got " + period);
        }
        return period;
    }

    public static boolean isReportDimensionsEnabled(Map<String, Object> reporterConf) {
        Object v = reporterConf.get(REPORT_DIMENSIONS_ENABLED);
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        String s = v.toString().trim();
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException(REPORT_DIMENSIONS_ENABLED + " must be true or false; got '" + v + "'");
    }

    /** The reporter's {@code filter}, created and prepared; null when it has none. */
    @SuppressWarnings("unchecked")
    public static StormMetricsFilter getMetricsFilter(Map<String, Object> reporterConf) {
        Object f = reporterConf.get("filter");
        if (f == null) {
            return null;
        }
        if (!(f instanceof Map)) {
            throw new IllegalArgumentException("filter must be a map with a \"class\" (a StormMetricsFilter); got "
                    + f);
        }
        Map<String, Object> filterConf = (Map<String, Object>) f;
        Object cls = filterConf.get("class");
        if (cls == null) {
            return null;
        }
        StormMetricsFilter filter;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> c = Class.forName(cls.toString(), true,
                    loader != null ? loader : ScheduledStormReporter.class.getClassLoader());
            if (!StormMetricsFilter.class.isAssignableFrom(c)) {
                throw new IllegalArgumentException("filter class " + cls + " does not implement "
                        + StormMetricsFilter.class.getName());
            }
            filter = (StormMetricsFilter) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("filter class " + cls + " cannot be created: " + e, e);
        }
        filter.prepare(filterConf);
        return filter;
    }

    @Override
    public void start() {
        if (reporter == null) {
            throw new IllegalStateException("Attempt to start without preparing " + getClass().getSimpleName());
        }
        reporter.start(reportingPeriod, reportingPeriodUnit);
    }

    @Override
    public void stop() {
        if (reporter == null) {
            throw new IllegalStateException("Attempt to stop without preparing " + getClass().getSimpleName());
        }
        reporter.stop();
    }

    @Override
    public void close() throws IOException {
        if (reporter != null) {
            reporter.close();
        }
    }
}

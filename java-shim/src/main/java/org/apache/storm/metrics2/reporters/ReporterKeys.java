package org.apache.storm.metrics2.reporters;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.storm.metrics2.filters.StormMetricsFilter;

/**
 * The keys every Storm reporter reads from its own entry: {@code rate.unit} and
 * {@code duration.unit} (names of {@link TimeUnit} constants, e.g. {@code SECONDS}) and
 * {@code locale} (a language tag). A bad value is an error naming the key.
 */
final class ReporterKeys {
    static final String RATE_UNIT = "rate.unit";
    static final String DURATION_UNIT = "duration.unit";
    static final String LOCALE = "locale";

    private ReporterKeys() {
    }

    /**
     * Hands the keys every reporter reads ({@code rate.unit}, {@code duration.unit} and the
     * {@code filter}) to its builder's setters, each only when the entry sets it; returns the
     * filter (null without one).
     */
    static StormMetricsFilter configure(Map<String, Object> reporterConf, Consumer<TimeUnit> rates,
                                        Consumer<TimeUnit> durations, Consumer<StormMetricsFilter> filters) {
        TimeUnit rateUnit = rateUnit(reporterConf);
        if (rateUnit != null) {
            rates.accept(rateUnit);
        }
        TimeUnit durationUnit = durationUnit(reporterConf);
        if (durationUnit != null) {
            durations.accept(durationUnit);
        }
        StormMetricsFilter filter = ScheduledStormReporter.getMetricsFilter(reporterConf);
        if (filter != null) {
            filters.accept(filter);
        }
        return filter;
    }

    static TimeUnit rateUnit(Map<String, Object> reporterConf) {
        return timeUnit(reporterConf, RATE_UNIT);
    }

    static TimeUnit durationUnit(Map<String, Object> reporterConf) {
        return timeUnit(reporterConf, DURATION_UNIT);
    }

    static Locale locale(Map<String, Object> reporterConf) {
        Object v = reporterConf.get(LOCALE);
        return v == null ? null : Locale.forLanguageTag(v.toString());
    }

    static TimeUnit timeUnit(Map<String, Object> reporterConf, String key) {
        Object v = reporterConf.get(key);
        if (v == null) {
            return null;
        }
        try {
            return TimeUnit.valueOf(v.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must name a java.util.concurrent.TimeUnit (NANOSECONDS,"
                    + " MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS); got '" + v + "'", e);
        }
    }

    static String string(Map<String, Object> reporterConf, String key) {
        Object v = reporterConf.get(key);
        return v == null ? null : v.toString();
    }

    /** A required key: an error naming the reporter and the key when absent or empty. */
    static String required(Map<String, Object> reporterConf, String key, String reporter) {
        String v = string(reporterConf, key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(reporter + " needs " + key + " in its topology.metrics.reporters"
                    + " entry");
        }
        return v;
    }
}

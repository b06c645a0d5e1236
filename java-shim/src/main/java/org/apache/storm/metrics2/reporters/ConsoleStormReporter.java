package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.ConsoleReporter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.ScheduledReporter;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.storm.metrics2.DimensionalReporter;
import org.apache.storm.metrics2.MetricRegistryProvider;
import org.apache.storm.metrics2.filters.StormMetricsFilter;

/**
 * Prints the metrics to standard output (the instance's log in Egret) every report period. Keys:
 * those of {@link ScheduledStormReporter}, {@code locale}, {@code rate.unit},
 * {@code duration.unit}; with {@code report.dimensions.enabled: true} each task's metrics are
 * printed under their short names after a "Using dimensions:" list.
 */
public class ConsoleStormReporter extends ScheduledStormReporter implements DimensionalReporter.DimensionHandler {
    public ConsoleStormReporter() {
    }

    @Override
    public void prepare(MetricRegistry registry, Map<String, Object> topoConf, Map<String, Object> reporterConf) {
        init(registry, null, reporterConf);
    }

    @Override
    public void prepare(MetricRegistryProvider metricRegistryProvider, Map<String, Object> topoConf,
                        Map<String, Object> reporterConf) {
        init(metricRegistryProvider.getRegistry(), metricRegistryProvider, reporterConf);
    }

    private void init(MetricRegistry registry, MetricRegistryProvider provider, Map<String, Object> reporterConf) {
        ConsoleReporter.Builder builder = ConsoleReporter.forRegistry(registry).outputTo(System.out);
        Locale locale = ReporterKeys.locale(reporterConf);
        if (locale != null) {
            builder.formattedFor(locale);
        }
        StormMetricsFilter filter = ReporterKeys.configure(reporterConf, builder::convertRatesTo,
                builder::convertDurationsTo, builder::filter);
        reportingPeriod = getReportPeriod(reporterConf);
        reportingPeriodUnit = getReportPeriodUnit(reporterConf);
        ScheduledReporter console = builder.build();
        if (isReportDimensionsEnabled(reporterConf)) {
            if (provider == null) {
                throw new RuntimeException("MetricRegistryProvider is required to enable reporting dimensions");
            }
            reporter = new DimensionalReporter(provider, console, this, "ConsoleDimensionalReporter", filter,
                    Objects.requireNonNullElse(ReporterKeys.rateUnit(reporterConf), TimeUnit.SECONDS),
                    Objects.requireNonNullElse(ReporterKeys.durationUnit(reporterConf), TimeUnit.MILLISECONDS),
                    null, true);
        } else {
            reporter = console;
        }
    }

    @Override
    public void setDimensions(Map<String, String> dimensions) {
        StringBuilder sb = new StringBuilder("Using dimensions: \n");
        for (Map.Entry<String, String> e : dimensions.entrySet()) {
            sb.append(e.getKey()).append(" : ").append(e.getValue()).append('\n');
        }
        System.out.print(sb);
    }

    @Override
    public void close() throws IOException {
        super.close();
    }
}

package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import java.io.IOException;
import java.util.Map;

/**
 * Exposes every metric as an MBean of the platform MBean server, live (no report period), in
 * the domain {@code jmx.domain} (default {@code metrics}); keys {@code rate.unit},
 * {@code duration.unit} and an optional {@code filter}.
 */
public class JmxStormReporter implements StormReporter {
    public static final String JMX_DOMAIN = "jmx.domain";

    JmxReporter reporter;

    public JmxStormReporter() {
    }

    public static String getMetricsJmxDomain(Map reporterConf) {
        Object v = reporterConf.get(JMX_DOMAIN);
        return v == null ? null : v.toString();
    }

    @Override
    public void prepare(MetricRegistry registry, Map<String, Object> topoConf, Map<String, Object> reporterConf) {
        JmxReporter.Builder builder = JmxReporter.forRegistry(registry);
        ReporterKeys.configure(reporterConf, builder::convertRatesTo, builder::convertDurationsTo, builder::filter);
        String domain = getMetricsJmxDomain(reporterConf);
        if (domain != null) {
            builder.inDomain(domain);
        }
        reporter = builder.build();
    }

    @Override
    public void start() {
        if (reporter == null) {
            throw new IllegalStateException("Attempt to start without preparing " + getClass().getSimpleName());
        }
        reporter.start();
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

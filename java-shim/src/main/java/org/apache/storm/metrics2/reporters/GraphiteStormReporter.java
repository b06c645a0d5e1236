package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.graphite.Graphite;
import com.codahale.metrics.graphite.GraphiteReporter;
import com.codahale.metrics.graphite.GraphiteSender;
import com.codahale.metrics.graphite.GraphiteUDP;
import java.io.IOException;
import java.util.Map;

/**
 * Sends the metrics to Graphite in its plaintext protocol ({@code <name> <value> <seconds>} lines)
 * every report period. Keys: {@code graphite.host} and {@code graphite.port} (required),
 * {@code graphite.transport} ({@code tcp}, the default, or {@code udp}),
 * {@code graphite.prefixed.with} (a prefix for every name), {@code rate.unit},
 * {@code duration.unit} and those of {@link ScheduledStormReporter}. A Graphite that is down
 * costs a warning per report, not the topology.
 */
public class GraphiteStormReporter extends ScheduledStormReporter {
    public static final String GRAPHITE_PREFIXED_WITH = "graphite.prefixed.with";
    public static final String GRAPHITE_HOST = "graphite.host";
    public static final String GRAPHITE_PORT = "graphite.port";
    public static final String GRAPHITE_TRANSPORT = "graphite.transport";

    public GraphiteStormReporter() {
    }

    @Override
    public void prepare(MetricRegistry registry, Map<String, Object> topoConf, Map<String, Object> reporterConf) {
        GraphiteReporter.Builder builder = GraphiteReporter.forRegistry(registry);
        ReporterKeys.configure(reporterConf, builder::convertRatesTo, builder::convertDurationsTo, builder::filter);
        String prefix = ReporterKeys.string(reporterConf, GRAPHITE_PREFIXED_WITH);
        if (prefix != null) {
            builder.prefixedWith(prefix);
        }
        reportingPeriod = getReportPeriod(reporterConf);
        reportingPeriodUnit = getReportPeriodUnit(reporterConf);
        String host = ReporterKeys.required(reporterConf, GRAPHITE_HOST, "GraphiteStormReporter");
        int port = port(reporterConf);
        String transport = ReporterKeys.string(reporterConf, GRAPHITE_TRANSPORT);
        GraphiteSender sender;
        if (transport == null || transport.equalsIgnoreCase("tcp")) {
            sender = new Graphite(host, port);
        } else if (transport.equalsIgnoreCase("udp")) {
            sender = new GraphiteUDP(host, port);
        } else {
            throw new IllegalArgumentException(GRAPHITE_TRANSPORT + " must be tcp or udp; got '" + transport + "'");
        }
        reporter = builder.build(sender);
    }

    private static int port(Map<String, Object> reporterConf) {
        String v = ReporterKeys.required(reporterConf, GRAPHITE_PORT, "GraphiteStormReporter");
        int port;
        try {
            port = (int) Double.parseDouble(v.trim());
            if (port != Double.parseDouble(v.trim())) {
                throw new NumberFormatException(v);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(GRAPHITE_PORT + " must be a port number; got '" + v + "'", e);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(GRAPHITE_PORT + " must be a port number (1-65535); got " + port);
        }
        return port;
    }

    @Override
    public void close() throws IOException {
        super.close();
    }
}

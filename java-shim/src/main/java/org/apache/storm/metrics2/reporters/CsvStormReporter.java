package org.apache.storm.metrics2.reporters;

import com.codahale.metrics.CsvReporter;
import com.codahale.metrics.MetricRegistry;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.apache.storm.Config;

/**
 * Appends each metric's values to {@code <csv.log.dir>/<metric name>.csv} every report period
 * (Dropwizard's CSV layout: a header line, then one line per report starting with the time in
 * seconds). Without {@code csv.log.dir}: {@code <storm.local.dir>/csvmetrics}, a relative
 * {@code storm.local.dir} being taken from the worker's working directory. Other keys:
 * {@code locale}, {@code rate.unit}, {@code duration.unit} and those of
 * {@link ScheduledStormReporter}.
 */
public class CsvStormReporter extends ScheduledStormReporter {
    public static final String CSV_LOG_DIR = "csv.log.dir";

    public CsvStormReporter() {
    }

    @Override
    public void prepare(MetricRegistry registry, Map<String, Object> topoConf, Map<String, Object> reporterConf) {
        CsvReporter.Builder builder = CsvReporter.forRegistry(registry);
        Locale locale = ReporterKeys.locale(reporterConf);
        if (locale != null) {
            builder.formatFor(locale);
        }
        ReporterKeys.configure(reporterConf, builder::convertRatesTo, builder::convertDurationsTo, builder::filter);
        reportingPeriod = getReportPeriod(reporterConf);
        reportingPeriodUnit = getReportPeriodUnit(reporterConf);
        reporter = builder.build(csvDir(topoConf, reporterConf));
    }

    private static File csvDir(Map<String, Object> topoConf, Map<String, Object> reporterConf) {
        String dir = ReporterKeys.string(reporterConf, CSV_LOG_DIR);
        File out;
        if (dir != null && !dir.isEmpty()) {
            out = new File(dir);
        } else {
            Object local = topoConf == null ? null : topoConf.get(Config.STORM_LOCAL_DIR);
            Path base = Path.of(System.getProperty("user.dir"));
            Path localDir = local == null ? base : base.resolve(local.toString());
            out = localDir.resolve("csvmetrics").toFile();
        }
        if (!out.isDirectory() && !out.mkdirs() && !out.isDirectory()) {
            throw new IllegalStateException(CSV_LOG_DIR + " " + out + " cannot be created");
        }
        if (!out.canWrite()) {
            throw new IllegalStateException(CSV_LOG_DIR + " " + out + " does not have write permissions.");
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        super.close();
    }
}

package dev.egret.examples;

import com.codahale.metrics.Counter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.ISubmitterHook;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.metrics2.filters.RegexFilter;
import org.apache.storm.metrics2.reporters.CsvStormReporter;
import org.apache.storm.metrics2.reporters.GraphiteStormReporter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * Metrics v2 reporters and the submitter hook: {@code numbers} emits {@value #COUNT} tracked
 * tuples; {@code counted} (2 tasks) increments its v2 counter {@value #COUNTER} (registered
 * with {@code TopologyContext.registerCounter}) exactly once per tuple it executes, records
 * the tuple into {@code <out>/counted-<task>.txt} and acks it.
 *
 * <p>{@code topology.metrics.reporters}: a {@link CsvStormReporter} writing into
 * {@code <out>/csv} and a {@link GraphiteStormReporter} sending to {@code 127.0.0.1:<port>} with
 * a {@link RegexFilter} keeping only the counter, both every second; and a reporter whose class
 * does not exist ({@code dev.egret.examples.NoSuchReporter}), which must not stop the others.
 *
 * <p>{@code storm.topology.submission.notifier.plugin.class}: {@link RecordingHook} (writes
 * {@code "<name> <id> <status>"} into {@code <out>/submitter-hook.txt}) or, with the third
 * argument {@code throw}, {@link ThrowingHook}.
 *
 * <p>Arguments: {@code <topology name> <output dir> <graphite port> [record|throw]}.
 */
public final class MetricsReportersTopology {
    static final int COUNT = 120;
    static final String COUNTER = "tuples-counted";
    static final String OUT_DIR = "egret.examples.out.dir";

    private MetricsReportersTopology() {}

    /** Emits COUNT tracked tuples, then idles. */
    public static final class NumberSpout extends BaseRichSpout {
        private transient SpoutOutputCollector collector;
        private transient int next;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            if (next < COUNT) {
                collector.emit(new Values(next), next);
                next++;
            } else {
                Recorder.idle();
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("n"));
        }
    }

    /** One counter increment and one recorded line per executed tuple. */
    public static final class CountingBolt extends BaseRichBolt {
        private final String dir;
        private transient OutputCollector collector;
        private transient Counter counter;
        private transient String file;

        public CountingBolt(String dir) {
            this.dir = dir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.counter = context.registerCounter(COUNTER);
            this.file = "counted-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void execute(Tuple input) {
            Recorder.append(dir, file, String.valueOf(input.getValue(0)));
            counter.inc();
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    /** Records that it was notified: "<name> <id> <status>" into <out>/submitter-hook.txt. */
    public static final class RecordingHook implements ISubmitterHook {
        @Override
        public void notify(TopologyInfo info, Map<String, Object> topoConf, StormTopology topology) {
            String dir = (String) topoConf.get(OUT_DIR);
            try {
                Files.writeString(Path.of(dir, "submitter-hook.txt"), info.get_name() + " " + info.get_id() + " "
                        + info.get_status() + " " + topology.get_bolts().keySet() + "\n", StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** Refuses every topology. */
    public static final class ThrowingHook implements ISubmitterHook {
        @Override
        public void notify(TopologyInfo info, Map<String, Object> topoConf, StormTopology topology)
                throws IllegalAccessException {
            throw new IllegalAccessException("ThrowingHook refuses " + info.get_name());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            throw new IllegalArgumentException(
                    "usage: MetricsReportersTopology <topology name> <output dir> <graphite port> [record|throw]");
        }
        String name = args[0];
        String dir = args[1];
        int graphitePort = Integer.parseInt(args[2]);
        boolean throwing = args.length > 3 && args[3].equals("throw");

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("numbers", new NumberSpout(), 1);
        builder.setBolt("counted", new CountingBolt(dir), 2).shuffleGrouping("numbers");

        Map<String, Object> csv = new HashMap<>();
        csv.put("class", CsvStormReporter.class.getName());
        csv.put(CsvStormReporter.CSV_LOG_DIR, Path.of(dir, "csv").toString());
        csv.put("report.period", 1);
        csv.put("report.period.units", "SECONDS");
        Map<String, Object> graphite = new HashMap<>();
        graphite.put("class", GraphiteStormReporter.class.getName());
        graphite.put(GraphiteStormReporter.GRAPHITE_HOST, "127.0.0.1");
        graphite.put(GraphiteStormReporter.GRAPHITE_PORT, graphitePort);
        graphite.put(GraphiteStormReporter.GRAPHITE_TRANSPORT, "tcp");
        graphite.put("report.period", 1);
        graphite.put("report.period.units", "SECONDS");
        Map<String, Object> filter = new HashMap<>();
        filter.put("class", RegexFilter.class.getName());
        filter.put("expression", ".*-" + COUNTER);
        graphite.put("filter", filter);

        Config conf = new Config();
        conf.put(OUT_DIR, dir);
        // A reporter class that does not exist: logged by each worker, the data path runs on.
        Map<String, Object> missing = Map.of("class", "dev.egret.examples.NoSuchReporter");
        conf.put(Config.TOPOLOGY_METRICS_REPORTERS, List.of(csv, graphite, missing));
        conf.put(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN,
                (throwing ? ThrowingHook.class : RecordingHook.class).getName());
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }
}

package dev.egret.examples;

import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.ErrorInfo;
import org.apache.storm.generated.TopologyInfo;
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
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;

/**
 * Errors reported by a bolt reach Nimbus's {@code TopologyInfo.errors}.
 *
 * <p>{@code numbers} emits {@link #TOTAL} numbers once; {@code complainer}
 * calls {@code reportError} for each. Storm reports at most
 * {@code topology.max.error.report.per.interval} (5) errors per task every
 * {@code topology.error.throttle.interval.secs} (10), so Nimbus sees 5. The main
 * submits, then asks Nimbus for the topology's errors until it has seen them and
 * a little longer, and prints {@code ERRORS <component> <count>} and each error's
 * first line as {@code ERROR <time> <host>:<port> <message>}.
 *
 * <p>Arguments: {@code <topology name> <output dir>} (the directory is unused).
 */
public final class ErrorReportTopology {
    public static final int TOTAL = 8;

    private ErrorReportTopology() {}

    public static final class NumberSpout extends BaseRichSpout {
        private SpoutOutputCollector collector;
        private int emitted;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            if (emitted >= TOTAL) {
                Recorder.idle();
                return;
            }
            collector.emit(new Values(emitted++));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("n"));
        }
    }

    public static final class ComplainingBolt extends BaseRichBolt {
        private OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            collector.reportError(new IllegalStateException("bad tuple " + input.getInteger(0)));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String name = Recorder.nameAndDir(args, "ErrorReportTopology")[0];
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("numbers", new NumberSpout(), 1);
        builder.setBolt("complainer", new ComplainingBolt(), 1).shuffleGrouping("numbers");
        Config conf = new Config();
        conf.setNumWorkers(1);
        StormSubmitter.submitTopology(name, conf, builder.createTopology());

        Map<String, Object> clientConf = Utils.readStormConfig();
        try (NimbusClient nimbus = NimbusClient.getConfiguredClient(clientConf)) {
            long deadline = System.currentTimeMillis() + 90_000;
            long settledAt = Long.MAX_VALUE;
            List<ErrorInfo> errors = List.of();
            while (System.currentTimeMillis() < deadline) {
                TopologyInfo info = nimbus.getClient().getTopologyInfoByName(name);
                errors = info.get_errors().getOrDefault("complainer", List.of());
                if (!errors.isEmpty() && settledAt == Long.MAX_VALUE) {
                    // The rest of the burst is throttled away: wait to see that nothing more comes.
                    settledAt = System.currentTimeMillis() + 4_000;
                }
                if (System.currentTimeMillis() >= settledAt) {
                    break;
                }
                Thread.sleep(250);
            }
            System.out.println("ERRORS complainer " + errors.size());
            for (ErrorInfo error : errors) {
                System.out.println("ERROR " + error.get_error_time_secs() + " " + error.get_host() + ":"
                        + error.get_port() + " " + error.get_error().lines().findFirst().orElse(""));
            }
        }
    }
}

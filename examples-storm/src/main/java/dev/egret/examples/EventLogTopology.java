package dev.egret.examples;

import java.nio.file.Files;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.LogConfig;
import org.apache.storm.generated.LogLevel;
import org.apache.storm.generated.LogLevelAction;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's event logging, for the end-to-end test: {@code words} (one spout task) emits batch
 * {@code b} ({@link #BATCH} words {@code evl-<b>-<i>}, message id {@code "<b>:<i>"}) once the
 * file {@code <out>/go-<b>} exists, and records each emit as {@code "<task> <msgId> <word>"} in
 * {@code <out>/words-<task>.txt}; {@code upper} (two tasks, shuffle) emits
 * {@code (WORD, length)} anchored and records {@code "<task> <WORD> <length>"} in
 * {@code <out>/upper-<task>.txt}. The topology has one event logger
 * ({@code topology.eventlogger.executors: 1}).
 *
 * <p>After submitting, main waits (at most 5 minutes) for {@code <out>/enable-debug}, then does
 * what a Storm user's script would: {@code NimbusClient...debug(name, "upper", true, 100)}, and
 * prints {@code DEBUG upper on}. It then waits for {@code <out>/log-timeout} and sets the level of
 * {@code upper}'s logger (which logs each tuple at DEBUG) to DEBUG for 3 seconds through
 * {@code Nimbus.setLogConfig}, and prints what {@code getLogConfig} answers
 * ({@code LOGCONFIG <logger>=<level>:<timeout>}).
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class EventLogTopology {
    public static final int BATCH = 5;
    public static final int BATCHES = 6;

    private EventLogTopology() {}

    public static final class GatedSpout extends BaseRichSpout {
        private final String outDir;
        private transient SpoutOutputCollector collector;
        private transient int task;
        private transient int next;

        public GatedSpout(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
            this.next = 1;
        }

        @Override
        public void nextTuple() {
            if (next > BATCHES || !Files.exists(Recorder.file(outDir, "go-" + next))) {
                Recorder.idle();
                return;
            }
            for (int i = 0; i < BATCH; i++) {
                String word = "evl-" + next + "-" + i;
                String id = next + ":" + i;
                collector.emit(new Values(word), id);
                Recorder.append(outDir, "words-" + task + ".txt", task + " " + id + " " + word);
            }
            next++;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    public static final class UpperBolt extends BaseRichBolt {
        private static final Logger LOG = LoggerFactory.getLogger(UpperBolt.class);
        private final String outDir;
        private transient OutputCollector collector;
        private transient int task;

        public UpperBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
        }

        @Override
        public void execute(Tuple input) {
            String upper = input.getString(0).toUpperCase();
            LOG.debug("upper {} -> {}", input.getString(0), upper);
            collector.emit(input, new Values(upper, upper.length()));
            Recorder.append(outDir, "upper-" + task + ".txt", task + " " + upper + " " + upper.length());
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("upper", "length"));
        }
    }

    public static void main(String[] args) throws Exception {
        String[] nd = Recorder.nameAndDir(args, "EventLogTopology");
        String name = nd[0];
        String out = nd[1];
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new GatedSpout(out), 1);
        builder.setBolt("upper", new UpperBolt(out), 2).shuffleGrouping("words");
        Config conf = new Config();
        conf.setNumWorkers(1);
        conf.setNumEventLoggers(1);
        StormSubmitter.submitTopology(name, conf, builder.createTopology());

        long deadline = System.currentTimeMillis() + 300_000;
        while (!Files.exists(Recorder.file(out, "enable-debug"))) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("no " + out + "/enable-debug within 5 minutes");
            }
            Thread.sleep(100);
        }
        try (NimbusClient nimbus = NimbusClient.getConfiguredClient(Utils.readStormConfig())) {
            nimbus.getClient().debug(name, "upper", true, 100);
        }
        System.out.println("DEBUG upper on");

        while (!Files.exists(Recorder.file(out, "log-timeout"))) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("no " + out + "/log-timeout within 5 minutes");
            }
            Thread.sleep(100);
        }
        try (NimbusClient nimbus = NimbusClient.getConfiguredClient(Utils.readStormConfig())) {
            String id = nimbus.getClient().getTopologySummaryByName(name).get_id();
            LogLevel level = new LogLevel(LogLevelAction.UPDATE);
            level.set_target_log_level("DEBUG");
            level.set_reset_log_level_timeout_secs(3);
            LogConfig config = new LogConfig();
            config.put_to_named_logger_level(UpperBolt.class.getName(), level);
            nimbus.getClient().setLogConfig(id, config);
            LogConfig now = nimbus.getClient().getLogConfig(id);
            for (Map.Entry<String, LogLevel> e : now.get_named_logger_level().entrySet()) {
                System.out.println("LOGCONFIG " + e.getKey() + "=" + e.getValue().get_target_log_level() + ":"
                        + e.getValue().get_reset_log_level_timeout_secs());
            }
        }
    }
}

package dev.egret.examples;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IErrorReporter;
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
 * Task hooks and worker metrics: {@code numbers} emits {@value #COUNT} tracked tuples,
 * {@code echo} acks them. A hook registered by {@code topology.auto.task.hooks}
 * ({@link AutoHook}) records into {@code <out>/hook_<component>-<task>.txt} every emit
 * ({@code emit <stream>}), spout ack ({@code spoutAck <msgId> <completeLatencyMs>}), bolt
 * execute and ack; a hook the bolt adds with {@code addTaskHook} records into
 * {@code <out>/added_echo-<task>.txt}. The spout records its own acks into
 * {@code <out>/acked-<task>.txt}. A metrics consumer records every {@code __system} data
 * point ({@code <component> <task> <name> <value>}) into {@code <out>/system-<task>.txt}.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class HooksTopology {
    static final int COUNT = 50;
    static final String OUT_DIR = "egret.examples.out.dir";

    private HooksTopology() {}

    /** Recorded for every task by topology.auto.task.hooks (public, no-argument constructor). */
    public static final class AutoHook extends BaseTaskHook {
        private String dir;
        private String file;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            dir = (String) conf.get(OUT_DIR);
            file = "hook_" + context.getThisComponentId() + "-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void emit(EmitInfo info) {
            Recorder.append(dir, file, "emit " + info.stream + " " + info.outTasks.size());
        }

        @Override
        public void spoutAck(SpoutAckInfo info) {
            Recorder.append(dir, file, "spoutAck " + info.messageId + " " + info.completeLatencyMs);
        }

        @Override
        public void boltExecute(BoltExecuteInfo info) {
            Recorder.append(dir, file, "execute " + info.tuple.getSourceComponent() + " " + info.tuple.getValue(0));
        }

        @Override
        public void boltAck(BoltAckInfo info) {
            Recorder.append(dir, file, "boltAck " + info.tuple.getSourceComponent() + " " + info.tuple.getValue(0));
        }
    }

    /** Added by the bolt itself in prepare. */
    static final class AddedHook extends BaseTaskHook {
        private final String dir;
        private String file;

        AddedHook(String dir) {
            this.dir = dir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            file = "added_" + context.getThisComponentId() + "-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void boltExecute(BoltExecuteInfo info) {
            Recorder.append(dir, file, "execute " + info.tuple.getValue(0));
        }

        @Override
        public void boltAck(BoltAckInfo info) {
            Recorder.append(dir, file, "boltAck " + info.tuple.getValue(0));
        }
    }

    /** Emits COUNT tracked tuples, then idles; records its acks. */
    public static final class NumberSpout extends BaseRichSpout {
        private final String dir;
        private transient SpoutOutputCollector collector;
        private transient int next;
        private transient int task;

        public NumberSpout(String dir) {
            this.dir = dir;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
        }

        @Override
        public void nextTuple() {
            if (next < COUNT) {
                collector.emit(new Values("n" + next), next);
                next++;
            } else {
                Recorder.idle();
            }
        }

        @Override
        public void ack(Object msgId) {
            Recorder.append(dir, "acked-" + task + ".txt", String.valueOf(msgId));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("n"));
        }
    }

    /** Acks everything; adds its own hook. */
    public static final class EchoBolt extends BaseRichBolt {
        private final String dir;
        private transient OutputCollector collector;

        public EchoBolt(String dir) {
            this.dir = dir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            context.addTaskHook(new AddedHook(dir));
        }

        @Override
        public void execute(Tuple input) {
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    /** Records the __system (worker) data points. */
    public static final class SystemRecorder implements IMetricsConsumer {
        private String dir;
        private String file;

        @Override
        public void prepare(Map<String, Object> topoConf, Object registrationArgument, TopologyContext context,
                            IErrorReporter errorReporter) {
            dir = (String) registrationArgument;
            file = "system-" + context.getThisTaskId() + ".txt";
        }

        @Override
        public void handleDataPoints(TaskInfo taskInfo, Collection<DataPoint> dataPoints) {
            if (!"__system".equals(taskInfo.srcComponentId)) {
                return;
            }
            StringBuilder sb = new StringBuilder();
            for (DataPoint p : dataPoints) {
                if (sb.length() > 0) {
                    sb.append('\n');
                }
                Object v = p.value;
                String shown = v instanceof Map ? String.valueOf(new java.util.TreeMap<>((Map<?, ?>) v).keySet()) : "v";
                sb.append(taskInfo.srcComponentId).append(' ').append(taskInfo.srcTaskId).append(' ')
                        .append(p.name).append(' ').append(shown);
            }
            if (sb.length() > 0) {
                Recorder.append(dir, file, sb.toString());
            }
        }

        @Override
        public void cleanup() {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "HooksTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("numbers", new NumberSpout(nameDir[1]), 1);
        builder.setBolt("echo", new EchoBolt(nameDir[1]), 1).shuffleGrouping("numbers");
        Config conf = new Config();
        conf.put(OUT_DIR, nameDir[1]);
        conf.put(Config.TOPOLOGY_AUTO_TASK_HOOKS, List.of(AutoHook.class.getName()));
        conf.put(Config.TOPOLOGY_BUILTIN_METRICS_BUCKET_SIZE_SECS, 1);
        conf.registerMetricsConsumer(SystemRecorder.class, nameDir[1], 1);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.createTopology());
    }
}

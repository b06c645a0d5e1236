package dev.egret.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;

/**
 * A bolt whose user code throws once: its executor dies, as in Storm, and is started again.
 * Or, with a third argument {@code out-of-memory}, a bolt that runs out of memory once and
 * catches the {@code OutOfMemoryError} as a library might: its JVM must end anyway (another
 * of its threads may have died of it) and be restarted.
 *
 * <p>{@code numbers} emits 0, 1, 2, ... (about 20 a second, unanchored); {@code crasher} appends
 * each to {@code <out>/crasher-<taskId>.txt} and, at its 5th tuple while {@code <out>/crashed}
 * does not exist, creates that file and throws a {@code RuntimeException} ("injected crash"),
 * or, out of memory, allocates 1 MiB arrays until its heap is full, catches the error, lets go
 * of them and goes on. After the restart it records again (from its 1st tuple on: the file
 * exists now).
 *
 * <p>Or, with {@code exit-3}, a bolt that calls {@code System.exit(3)} once, as user code that
 * gives up on its process does: its JVM ends (with the JNI bridge, its stream manager's process,
 * whose own code 3 means "topology killed") and is restarted.
 *
 * <p>Arguments: {@code <topology name> <output dir> [out-of-memory | exit-3]}.
 */
public final class CrashOnceTopology {
    private CrashOnceTopology() {}

    /** 0, 1, 2, ... every 50 ms. */
    public static final class NumberSpout extends BaseRichSpout {
        private transient SpoutOutputCollector collector;
        private transient int next;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            Utils.sleep(50);
            collector.emit(new Values(next++));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("n"));
        }
    }

    /** Records what it gets; throws (or fills its heap) once, at its 5th tuple. */
    public static final class CrashOnceBolt extends BaseBasicBolt {
        private final String outDir;
        private final String mode;
        private transient int task;
        private transient int seen;

        /** {@code mode}: {@code crash}, {@code out-of-memory} or {@code exit-3}. */
        public CrashOnceBolt(String outDir, String mode) {
            this.outDir = outDir;
            this.mode = mode;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            this.task = context.getThisTaskId();
        }

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            seen++;
            Path marker = Path.of(outDir, "crashed");
            if (seen == 5 && !Files.exists(marker)) {
                try {
                    Files.createFile(marker);
                } catch (java.io.IOException e) {
                    throw new IllegalStateException("cannot create " + marker, e);
                }
                if ("exit-3".equals(mode)) {
                    System.exit(3);
                }
                if (!"out-of-memory".equals(mode)) {
                    throw new RuntimeException("injected crash of the crash-once bolt");
                }
                List<long[]> hog = new ArrayList<>();
                try {
                    while (true) {
                        hog.add(new long[1 << 17]);
                    }
                } catch (OutOfMemoryError e) {
                    hog.clear();
                }
            }
            Recorder.append(outDir, "crasher-" + task + ".txt", String.valueOf(input.getInteger(0)));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "CrashOnceTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("numbers", new NumberSpout(), 1);
        String mode = args.length > 2 ? args[2] : "crash";
        if (!List.of("crash", "out-of-memory", "exit-3").contains(mode)) {
            throw new IllegalArgumentException("unknown mode " + mode + ": out-of-memory or exit-3, or none");
        }
        builder.setBolt("crasher", new CrashOnceBolt(nameDir[1], mode), 1).shuffleGrouping("numbers");
        StormSubmitter.submitTopology(nameDir[0], new Config(), builder.createTopology());
    }
}

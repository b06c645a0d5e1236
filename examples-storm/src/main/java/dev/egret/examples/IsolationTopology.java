package dev.egret.examples;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
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
import org.apache.storm.utils.Utils;

/**
 * Resources as Storm declares them, for the isolation test.
 *
 * <p>{@code ticks} emits a number every 10 ms, to every bolt (all grouping):
 * {@code hog} ({@code setMemoryLoad(64)}) allocates and touches 1 GiB outside
 * its heap at its 50th tuple, once per topology (a marker file in its working
 * directory, which survives its restarts), which its memory limit does not
 * allow; {@code spin} ({@code setCPULoad(50)}: half a core) burns CPU for
 * 50 ms on every tuple, more than half a core's worth; {@code steady} records
 * every number it gets to {@code <out>/steady.txt}, so the test sees it run on
 * while {@code hog} is killed.
 *
 * <p>Arguments: {@code <topology name> <output dir>}.
 */
public final class IsolationTopology {
    private IsolationTopology() {}

    /** Emits 0, 1, 2, ... every 10 ms. */
    public static final class TickSpout extends BaseRichSpout {
        private SpoutOutputCollector collector;
        private long next;

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            Utils.sleep(10);
            collector.emit(new Values(next++));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("n"));
        }
    }

    /** Allocates past its memory limit once. */
    public static final class HogBolt extends BaseRichBolt {
        private static final long GIB = 1L << 30;
        private static final long PAGE = 4096;
        private transient int seen;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {}

        @Override
        public void execute(Tuple input) {
            seen++;
            Path marker = Path.of("hogged");
            if (seen != 50 || Files.exists(marker)) {
                return;
            }
            try {
                Files.createFile(marker);
                Field field = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
                field.setAccessible(true);
                sun.misc.Unsafe unsafe = (sun.misc.Unsafe) field.get(null);
                long address = unsafe.allocateMemory(GIB);
                for (long offset = 0; offset < GIB; offset += PAGE) {
                    unsafe.putByte(address + offset, (byte) 1);
                }
                // Not reached under a limit below 1 GiB: the kernel kills the JVM.
                unsafe.freeMemory(address);
            } catch (ReflectiveOperationException | java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    /** Burns 50 ms of CPU per tuple. */
    public static final class SpinBolt extends BaseRichBolt {
        private transient long sink;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {}

        @Override
        public void execute(Tuple input) {
            long until = System.nanoTime() + 50_000_000L;
            while (System.nanoTime() < until) {
                sink += System.nanoTime() % 7;
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    /** Records every number. */
    public static final class SteadyBolt extends BaseRichBolt {
        private final String outDir;

        public SteadyBolt(String outDir) {
            this.outDir = outDir;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {}

        @Override
        public void execute(Tuple input) {
            Recorder.append(outDir, "steady.txt", Long.toString(input.getLongByField("n")));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    public static void main(String[] args) throws Exception {
        String[] nameDir = Recorder.nameAndDir(args, "IsolationTopology");
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("ticks", new TickSpout(), 1);
        builder.setBolt("hog", new HogBolt(), 1).allGrouping("ticks").setMemoryLoad(64);
        builder.setBolt("spin", new SpinBolt(), 1).allGrouping("ticks").setCPULoad(50);
        builder.setBolt("steady", new SteadyBolt(nameDir[1]), 1).allGrouping("ticks");

        Config conf = new Config();
        conf.setNumWorkers(1);
        // Acking off: the spout's pace is the test's clock, not the bolts'.
        conf.setNumAckers(0);
        conf.put("egret.isolation", "cgroups");
        conf.put("egret.isolation.jvm.overhead.mb", 192);
        StormSubmitter.submitTopology(nameDir[0], conf, builder.createTopology());
    }
}

package dev.egret.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ceiling's driver on toy topologies: routing, acking, failing, pending limits, hooks, capture. */
class CeilingTest {
    /** What components saw, by test run and event ("acked", "count:3", ...): components are deserialized copies. */
    static final Map<String, List<Object>> EVENTS = new ConcurrentHashMap<>();

    static void record(String run, String event, Object value) {
        EVENTS.computeIfAbsent(run + "/" + event, k -> Collections.synchronizedList(new ArrayList<>())).add(value);
    }

    static List<Object> events(String run, String event) {
        return EVENTS.getOrDefault(run + "/" + event, List.of());
    }

    /** Emits {@code limit} sentences with message ids 0, 1, ..., then nothing. */
    static class SentenceSpout extends BaseRichSpout {
        final String run;
        final int limit;
        final boolean withIds;
        transient SpoutOutputCollector collector;
        transient int emitted;
        transient boolean inNextTuple;

        SentenceSpout(String run, int limit, boolean withIds) {
            this.run = run;
            this.limit = limit;
            this.withIds = withIds;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void nextTuple() {
            if (emitted >= limit) {
                return;
            }
            inNextTuple = true;
            int id = emitted++;
            collector.emit(new Values("w" + (id % 7) + " w" + (id % 3) + " x"), withIds ? id : null);
            record(run, "emitted", id);
            inNextTuple = false;
        }

        @Override
        public void ack(Object msgId) {
            assertFalse(inNextTuple, "ack called from inside nextTuple");
            record(run, "acked", msgId);
        }

        @Override
        public void fail(Object msgId) {
            assertFalse(inNextTuple, "fail called from inside nextTuple");
            record(run, "failed", msgId);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("sentence"));
        }
    }

    /** Splits a sentence into anchored words; fails sentences whose id is in {@code failIds}; never acks with {@code hold}. */
    static class SplitBolt extends BaseRichBolt {
        final String run;
        final boolean hold;
        transient OutputCollector collector;
        transient int task;

        SplitBolt(String run, boolean hold) {
            this.run = run;
            this.hold = hold;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.task = context.getThisTaskId();
        }

        @Override
        public void execute(Tuple input) {
            record(run, "split:" + task, input.getStringByField("sentence"));
            if (hold) {
                return;
            }
            if (input.getStringByField("sentence").startsWith("w6 w0")) {
                collector.fail(input);
                return;
            }
            for (String word : input.getString(0).split(" ")) {
                collector.emit(input, new Values(word));
            }
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    static class CountBolt extends BaseBasicBolt {
        final String run;
        transient int task;

        CountBolt(String run) {
            this.run = run;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context) {
            task = context.getThisTaskId();
        }

        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
            record(run, "count:" + task, input.getString(0));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    private static StormTopology topology(String run, int sentences, boolean withIds, boolean hold) {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new SentenceSpout(run, sentences, withIds));
        b.setBolt("split", new SplitBolt(run, hold), 2).shuffleGrouping("spout");
        b.setBolt("count", new CountBolt(run), 3).fieldsGrouping("split", new Fields("word"));
        b.setBolt("audit", new CountBolt(run), 2).allGrouping("spout");
        return b.createTopology();
    }

    private static Map<String, Object> conf(Object... kv) {
        Map<String, Object> conf = new HashMap<>(Utils.readStormConfig());
        for (int i = 0; i < kv.length; i += 2) {
            conf.put((String) kv[i], kv[i + 1]);
        }
        return conf;
    }

    private static Ceiling run(String run, StormTopology topology, Map<String, Object> conf, int steps) throws Exception {
        Ceiling c = new Ceiling(run, topology, conf);
        c.prepare();
        for (int i = 0; i < steps; i++) {
            c.step();
        }
        return c;
    }

    @Test
    void routesAcksAndFailsAsStormWould() throws Exception {
        String run = "route";
        Ceiling c = run(run, topology(run, 70, true, false), conf(), 100);
        // Tasks numbered as Storm does: components sorted (audit, count, split, spout), ids from 1.
        assertEquals(List.of(1, 2), c.tasksOf("audit"));
        assertEquals(List.of(3, 4, 5), c.tasksOf("count"));
        assertEquals(List.of(6, 7), c.tasksOf("split"));
        // Shuffle: each split task got half; all: each audit task got every sentence.
        assertEquals(35, events(run, "split:6").size());
        assertEquals(35, events(run, "split:7").size());
        assertEquals(70, events(run, "count:1").size());
        assertEquals(70, events(run, "count:2").size());
        // Fields: a word always reaches the same count task.
        Map<Object, Integer> owner = new HashMap<>();
        int words = 0;
        for (int task : c.tasksOf("count")) {
            for (Object w : events(run, "count:" + task)) {
                words++;
                Integer before = owner.put(w, task);
                assertTrue(before == null || before == task, w + " reached tasks " + before + " and " + task);
            }
        }
        assertTrue(new HashSet<>(owner.values()).size() > 1, "fields grouping used one task only: " + owner);
        // Sentences starting "w6 w0" (ids 6, 27, 48, 69) fail; the others are acked once their words are.
        Set<Object> failed = new HashSet<>(events(run, "failed"));
        assertEquals(Set.of(6, 27, 48, 69), failed);
        assertEquals(66, events(run, "acked").size());
        assertEquals(66 * 3, words);
        assertEquals(0, c.openTrees());
        c.shutdown();
    }

    @Test
    void maxSpoutPendingHoldsTheSpoutAndTimeoutsFailTrees() throws Exception {
        String run = "pending";
        Ceiling c = run(run, topology(run, 100, true, true),
                conf(Config.TOPOLOGY_MAX_SPOUT_PENDING, 5, Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 1), 50);
        assertEquals(5, events(run, "emitted").size());
        assertEquals(5, c.openTrees());
        assertTrue(events(run, "failed").isEmpty());
        Thread.sleep(1200);
        c.step();
        assertEquals(5, events(run, "failed").size());
        c.step();
        assertEquals(0, events(run, "acked").size());
        // Room again: the spout is called.
        assertTrue(events(run, "emitted").size() > 5);
    }

    @Test
    void withoutAckersSpoutTuplesAreAckedAtOnceAndUntrackedTuplesNeverAre() throws Exception {
        String run = "noackers";
        run(run, topology(run, 10, true, true), conf(Config.TOPOLOGY_ACKER_EXECUTORS, 0), 20);
        assertEquals(10, events(run, "acked").size());
        String run2 = "noids";
        Ceiling c = run(run2, topology(run2, 10, false, false), conf(), 20);
        assertEquals(0, events(run2, "acked").size());
        assertEquals(0, c.openTrees());
        assertEquals(10, events(run2, "split:6").size() + events(run2, "split:7").size());
    }

    @Test
    void theLatencyHookMeasuresTheCeilingInItsFileFormat(@TempDir Path dir) throws Exception {
        String run = "hook";
        Ceiling c = run(run, topology(run, 50, true, false), conf(Ceiling.AUTO_TASK_HOOKS,
                List.of(LatencyHook.class.getName()), LatencyHook.OUTPUT_DIR, dir.toString()), 60);
        c.shutdown();
        String spout = Files.readString(dir.resolve("spout-8.txt"));
        assertTrue(spout.contains("\nspout true\n") && spout.contains("\nacked 47\n")
                && spout.contains("\nfailed 3\n") && spout.contains("\nlatency_count 47\n"), spout);
        // The first ack's wall clock: set, and not after the file was written.
        long first = Long.parseLong(spout.replaceAll("(?s).*\nfirst_ms (\\d+)\n.*", "$1"));
        long written = Long.parseLong(spout.replaceAll("(?s).*\ntime_ms (\\d+)\n.*", "$1"));
        assertTrue(first > 0 && first <= written, spout);
        String count = Files.readString(dir.resolve("count-3.txt"));
        assertTrue(count.contains("\nsink true\n"), count);
        assertTrue(Files.readString(dir.resolve("split-6.txt")).contains("\nexecuted 25\n"));
    }

    /** A user main as storm jar runs it. */
    public static class ToyMain {
        public static void main(String[] args) throws Exception {
            Config conf = new Config();
            conf.setMaxSpoutPending(Integer.parseInt(args[0]));
            StormSubmitter.submitTopology("toy", conf, topology("capture", 1, true, false));
        }
    }

    @Test
    void theSubmittedTopologyIsCapturedWithoutACluster(@TempDir Path dir) throws Throwable {
        Path jar = dir.resolve("app.jar");
        Files.write(jar, new byte[] {1, 2, 3});
        String before = System.getProperty("storm.jar");
        System.setProperty("storm.jar", jar.toString());
        List<Object> seen = new ArrayList<>();
        try {
            CeilingRunner.runMain(ToyMain.class.getName(), new String[] {"17"}, (name, conf, topology) -> {
                seen.add(name);
                seen.add(((Number) conf.get(Config.TOPOLOGY_MAX_SPOUT_PENDING)).longValue());
                seen.add(new java.util.TreeSet<>(topology.get_bolts().keySet()));
            });
        } finally {
            if (before == null) {
                System.clearProperty("storm.jar");
            } else {
                System.setProperty("storm.jar", before);
            }
        }
        assertEquals(List.of("toy", 17L, new java.util.TreeSet<>(List.of("audit", "count", "split"))), seen);
    }
}

package org.apache.storm.metric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.client.TopologyCapture;
import dev.egret.instance.TopologyView;
import dev.egret.metrics.EventLoggers;
import dev.egret.proto.Component;
import dev.egret.proto.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLoggerBoltTest {
    /** Events every RecordingLogger instance of this JVM received, with its arguments. */
    static final List<String> RECORDED = new ArrayList<>();

    public static class RecordingLogger implements IEventLogger {
        private Object tag;

        @Override
        public void prepare(Map<String, Object> conf, Map<String, Object> arguments, TopologyContext context) {
            tag = arguments == null ? null : arguments.get("tag");
        }

        @Override
        public void log(EventInfo e) {
            synchronized (RECORDED) {
                RECORDED.add(tag + ":" + e.getComponent() + ":" + e.getTask() + ":" + e.getMessageId() + ":"
                        + e.getValues());
            }
        }

        @Override
        public void close() {
            synchronized (RECORDED) {
                RECORDED.add(tag + ":closed");
            }
        }
    }

    static class Spout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    static class Bolt extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    private static Topology capture(Map<String, Object> conf) throws Exception {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("words", new Spout(), 2);
        b.setBolt("upper", new Bolt(), 1).shuffleGrouping("words");
        return TopologyCapture.capture("evlog", conf, b.createTopology());
    }

    private static Component component(Topology t, String id) {
        return t.getComponentsList().stream().filter(c -> c.getId().equals(id)).findFirst().orElse(null);
    }

    @Test
    void theEventLoggerComponentSubscribesToEveryComponentsEventlogStream() throws Exception {
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, 2);
        Topology t = capture(conf);
        Component logger = component(t, "__eventlogger");
        assertEquals(2, logger.getParallelism());
        assertEquals(2, logger.getNumTasks());
        assertEquals(2, logger.getInputsCount());
        for (var in : logger.getInputsList()) {
            assertEquals("__eventlog", in.getStream());
            assertEquals(List.of("component-id"), in.getGrouping().getFields().getFieldsList());
        }
        for (Component c : t.getComponentsList()) {
            var stream = c.getStreamsList().stream().filter(s -> s.getId().equals("__eventlog")).findFirst();
            assertTrue(stream.isPresent(), c.getId() + " declares __eventlog");
            assertEquals(List.of("component-id", "message-id", "ts", "values"), stream.get().getFieldsList());
        }
    }

    @Test
    void noEventLoggerAtZeroOrWithoutTheKeyAndOnePerWorkerWhenNull() throws Exception {
        Map<String, Object> conf = new HashMap<>();
        assertNull(component(capture(conf), "__eventlogger"));
        conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, 0);
        Topology t = capture(conf);
        assertNull(component(t, "__eventlogger"));
        assertTrue(component(t, "upper").getStreamsList().stream().noneMatch(s -> s.getId().equals("__eventlog")));
        conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, null);
        conf.put(Config.TOPOLOGY_WORKERS, 3);
        assertEquals(3, component(capture(conf), "__eventlogger").getParallelism());
        conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, -1);
        InvalidTopologyException e = assertThrows(InvalidTopologyException.class, () -> EventLoggers.executors(conf));
        assertTrue(e.getMessage().contains("topology.eventlogger.executors"), e.getMessage());
    }

    /** The bolt of a captured topology, prepared in {@code dir}, with a tuple maker for its input. */
    private static final class Fixture {
        final TopologyView view;
        final TopologyContext loggerContext;

        Fixture(Map<String, Object> conf, Path dir) throws Exception {
            conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, 1);
            view = new TopologyView(capture(conf));
            int task = view.tasksOf("__eventlogger").get(0);
            loggerContext = new TopologyContext(view, task, List.of(task), dir.toString(), dir.toString(), null,
                    null, null);
        }

        Tuple event(String source, int sourceTask, Object messageId, long ts, List<Object> values) {
            return new TupleImpl(loggerContext, List.of(source, messageId == null ? "" : messageId, ts, values),
                    source, sourceTask, "__eventlog") {
                @Override
                public Object getValueByField(String field) {
                    Object v = super.getValueByField(field);
                    return "message-id".equals(field) && "".equals(v) ? null : v;
                }
            };
        }
    }

    @Test
    void theDefaultLoggerWritesOneLinePerEventToEventsLog(@TempDir Path dir) throws Exception {
        Map<String, Object> conf = new HashMap<>();
        Fixture f = new Fixture(conf, dir);
        EventLoggerBolt bolt = new EventLoggerBolt();
        bolt.prepare(conf, f.loggerContext, (OutputCollector) null);
        int upperTask = f.view.tasksOf("upper").get(0);
        int wordsTask = f.view.tasksOf("words").get(1);
        bolt.execute(f.event("upper", upperTask, null, 1_000L, List.of("APPLE", 1)));
        bolt.execute(f.event("words", wordsTask, "m-7", 2_000L, List.of("pear")));
        bolt.cleanup();
        List<String> lines = Files.readAllLines(dir.resolve("events.log"), StandardCharsets.UTF_8);
        assertEquals(List.of(
                new Date(1_000L) + ",upper," + upperTask + ",,[APPLE, 1]",
                new Date(2_000L) + ",words," + wordsTask + ",m-7,[pear]"), lines);

        // A second logger in the same directory appends.
        EventLoggerBolt again = new EventLoggerBolt();
        again.prepare(conf, f.loggerContext, (OutputCollector) null);
        again.execute(f.event("upper", upperTask, null, 3_000L, List.of("FIG")));
        again.cleanup();
        assertEquals(3, Files.readAllLines(dir.resolve("events.log")).size());
    }

    @Test
    void registeredLoggersRunInsteadOfTheDefaultWithTheirArguments(@TempDir Path dir) throws Exception {
        Map<String, Object> conf = new HashMap<>();
        Config.registerEventLogger(conf, RecordingLogger.class, Map.of("tag", "a"));
        Config.registerEventLogger(conf, RecordingLogger.class, Map.of("tag", "b"));
        Fixture f = new Fixture(conf, dir);
        synchronized (RECORDED) {
            RECORDED.clear();
        }
        EventLoggerBolt bolt = new EventLoggerBolt();
        bolt.prepare(conf, f.loggerContext, (OutputCollector) null);
        int upperTask = f.view.tasksOf("upper").get(0);
        bolt.execute(f.event("upper", upperTask, null, 5L, List.of("KIWI")));
        bolt.cleanup();
        synchronized (RECORDED) {
            assertEquals(List.of("a:upper:" + upperTask + ":null:[KIWI]", "b:upper:" + upperTask + ":null:[KIWI]",
                    "a:closed", "b:closed"), RECORDED);
        }
        assertTrue(Files.notExists(dir.resolve("events.log")), "no default logger when loggers are registered");
    }

    @Test
    void aLoggerThatIsNoIEventLoggerIsRefusedNamingIt(@TempDir Path dir) throws Exception {
        Map<String, Object> conf = new HashMap<>();
        Fixture f = new Fixture(conf, dir);
        Map<String, Object> entry = new HashMap<>();
        entry.put("class", "java.lang.String");
        conf.put(Config.TOPOLOGY_EVENT_LOGGER_REGISTER, List.of(entry));
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> new EventLoggerBolt().prepare(conf, f.loggerContext, (OutputCollector) null));
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    }

    @Test
    void fileBasedEventLoggerFormatsAsStorm(@TempDir Path dir) throws Exception {
        Fixture f = new Fixture(new HashMap<>(), dir);
        FileBasedEventLogger logger = new FileBasedEventLogger() {
            @Override
            protected String buildLogMessage(EventInfo e) {
                return "custom " + super.buildLogMessage(e);
            }
        };
        logger.prepare(new HashMap<>(), null, f.loggerContext);
        logger.log(new IEventLogger.EventInfo(0L, "c", 4, 9, List.of("v")));
        logger.close();
        assertEquals(List.of("custom " + new Date(0L) + ",c,4,9,[v]"), Files.readAllLines(dir.resolve("events.log")));
    }
}

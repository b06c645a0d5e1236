package dev.egret.multilang;

import dev.egret.instance.TopologyView;
import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.Empty;
import dev.egret.proto.Grouping;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.proto.Topology;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;

/**
 * A two-component topology ("split" bolt = task 1, "spout" = task 2), contexts whose code
 * directory holds the test scripts in {@code resources/}, and recording collectors.
 */
final class MultilangFixtures {
    static final List<Integer> TARGETS = List.of(4, 5);

    private MultilangFixtures() {
    }

    static TopologyView view() {
        Component spout = Component.newBuilder().setId("spout").setKind(ComponentKind.COMPONENT_KIND_SPOUT)
                .setParallelism(1).setNumTasks(1).setConfigJson("{}")
                .addStreams(StreamDef.newBuilder().setId("default").addFields("word"))
                .addStreams(StreamDef.newBuilder().setId("direct").addFields("d").setDirect(true))
                .build();
        Component split = Component.newBuilder().setId("split").setKind(ComponentKind.COMPONENT_KIND_BOLT)
                .setParallelism(1).setNumTasks(1).setConfigJson("{}")
                .addStreams(StreamDef.newBuilder().setId("default").addFields("word"))
                .addStreams(StreamDef.newBuilder().setId("direct").addFields("d").setDirect(true))
                .addStreams(StreamDef.newBuilder().setId("other").addFields("ids"))
                .addInputs(InputDef.newBuilder().setComponent("spout").setStream("default")
                        .setGrouping(Grouping.newBuilder().setShuffle(Empty.getDefaultInstance())))
                .build();
        Topology topo = Topology.newBuilder().setName("multilang").setId("multilang-1-1")
                .setConfigJson("{}").addComponents(split).addComponents(spout).build();
        return new TopologyView(topo);
    }

    /** A code directory with the test scripts in its {@code resources/}. */
    static Path codeDir(Path tmp) throws IOException {
        Path resources = Files.createDirectories(tmp.resolve("resources"));
        for (String name : List.of("testbolt.py", "testspout.js")) {
            try (InputStream in = MultilangFixtures.class.getResourceAsStream("/multilang/resources/" + name)) {
                Files.copy(in, resources.resolve(name));
            }
        }
        return tmp;
    }

    static TopologyContext context(TopologyView view, String component, Path codeDir) throws IOException {
        int task = view.tasksOf(component).get(0);
        Path pids = Files.createDirectories(codeDir.resolve("pids"));
        return new TopologyContext(view, task, List.of(task), codeDir.toString(), pids.toString(),
                new HashMap<>(), new HashMap<>(), new HashMap<>());
    }

    static Map<String, Object> conf() {
        Map<String, Object> conf = new HashMap<>();
        conf.put("storm.cluster.mode", "local");
        conf.put("egret.test.key", "v");
        return conf;
    }

    static Tuple tuple(TopologyView view, TopologyContext ctx, Object... values) {
        return new TupleImpl(ctx, new ArrayList<>(Arrays.asList(values)), "spout", view.tasksOf("spout").get(0),
                "default");
    }

    static void await(BooleanSupplier cond, long millis, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    static String stackText(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append('\n');
        }
        return sb.toString();
    }

    /** One emit as the collector saw it. */
    record Emit(String stream, List<Tuple> anchors, List<Object> values, Integer directTask, Object messageId) {
    }

    static final class BoltRecorder implements IOutputCollector {
        final List<Emit> emits = Collections.synchronizedList(new ArrayList<>());
        final List<Tuple> acked = Collections.synchronizedList(new ArrayList<>());
        final List<Tuple> failed = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());

        @Override
        public List<Integer> emit(String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emits.add(new Emit(streamId, new ArrayList<>(anchors), tuple, null, null));
            return TARGETS;
        }

        @Override
        public void emitDirect(int taskId, String streamId, Collection<Tuple> anchors, List<Object> tuple) {
            emits.add(new Emit(streamId, new ArrayList<>(anchors), tuple, taskId, null));
        }

        @Override
        public void ack(Tuple input) {
            acked.add(input);
        }

        @Override
        public void fail(Tuple input) {
            failed.add(input);
        }

        @Override
        public void resetTimeout(Tuple input) {
        }

        @Override
        public void flush() {
        }

        @Override
        public void reportError(Throwable error) {
            errors.add(error);
        }

        String errorText() {
            synchronized (errors) {
                StringBuilder sb = new StringBuilder();
                for (Throwable t : errors) {
                    sb.append(stackText(t));
                }
                return sb.toString();
            }
        }
    }

    static final class SpoutRecorder implements ISpoutOutputCollector {
        final List<Emit> emits = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());

        @Override
        public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
            emits.add(new Emit(streamId, List.of(), tuple, null, messageId));
            return TARGETS;
        }

        @Override
        public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
            emits.add(new Emit(streamId, List.of(), tuple, taskId, messageId));
        }

        @Override
        public long getPendingCount() {
            return 0;
        }

        @Override
        public void flush() {
        }

        @Override
        public void reportError(Throwable error) {
            errors.add(error);
        }

        String errorText() {
            synchronized (errors) {
                StringBuilder sb = new StringBuilder();
                for (Throwable t : errors) {
                    sb.append(stackText(t));
                }
                return sb.toString();
            }
        }
    }
}

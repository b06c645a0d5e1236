package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.metrics.TaskMetrics;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.StatsReport;
import dev.egret.proto.TaskStatsDelta;
import dev.egret.proto.Topology;
import dev.egret.proto.TupleData;
import dev.egret.serialization.TupleValuesCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.metric.api.CountMetric;
import org.apache.storm.metric.api.IMetricsConsumer.DataPoint;
import org.apache.storm.metric.api.IMetricsConsumer.TaskInfo;
import org.apache.storm.task.TopologyContext;
import org.junit.jupiter.api.Test;

/** Bucket timing and stats reports, with the time driven by the test. */
class ExecutorMetricsTest {
    private static final long SEC = TimeUnit.SECONDS.toNanos(1);

    private static final class Recorder implements OutboundSink.FrameWriter {
        final List<InstanceToStreamManager> written = new ArrayList<>();
        boolean broken;

        @Override
        public void write(InstanceToStreamManager message) throws IOException {
            if (broken) {
                throw new IOException("broken pipe");
            }
            written.add(message);
        }
    }

    /** "__metrics_c" (task 1) subscribes to "spout"'s __metrics (spout: task 2). */
    private static Topology topology(String conf) {
        return Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson(conf)
                .addComponents(Plans.bolt("__metrics_c", 1, new TestComponents.NullBolt()))
                .addComponents(Plans.spout("spout", 1, new TestComponents.CountingSpout(0))
                        .addStreams(Plans.stream("default", "word"))
                        .addStreams(Plans.stream("__metrics", "task-info", "data-points")))
                .build().toBuilder()
                .setComponents(0, Plans.bolt("__metrics_c", 1, new TestComponents.NullBolt())
                        .addInputs(Plans.input("spout", "__metrics", Plans.shuffle())))
                .build();
    }

    private static final class Rig {
        final Recorder writer = new Recorder();
        final OutboundSink sink = new OutboundSink(writer, 1, 0);
        final TaskMetrics metrics = new TaskMetrics(true);
        final ExecutorMetrics em;
        final TaskEmitter emitter;

        Rig(String conf, boolean consumers) {
            Topology t = topology(conf);
            TopologyView view = new TopologyView(t);
            TopologyContext ctx = new TopologyContext(view, 2, List.of(2), "/tmp", "/tmp", null, null, null, metrics);
            GroupingRouter router = new GroupingRouter(view, "spout", ctx, new HashMap<>(), 1);
            emitter = new TaskEmitter(2, "spout", router, sink, ThreadLocal.withInitial(
                    () -> new TupleValuesCodec(view.topologyConf())), false, metrics.stats());
            em = new ExecutorMetrics("spout-0", "spout", true, sink, consumers, view.topologyConf(), 0);
            em.add(new ExecutorMetrics.TaskEntry(2, metrics, emitter));
            sink.sendReady();
            writer.written.clear();
        }

        /** The (TaskInfo, points) of the __metrics tuples written since the last call. */
        int systemTuples;

        List<List<Object>> metricsTuples() {
            List<List<Object>> out = new ArrayList<>();
            TupleValuesCodec codec = new TupleValuesCodec(new HashMap<>());
            for (InstanceToStreamManager m : writer.written) {
                for (TupleData td : m.getTuples().getTuplesList()) {
                    if (td.getStream().equals("__metrics")) {
                        assertEquals(1, td.getDestTask());
                        List<Object> values = codec.deserialize(td.getValues().toByteArray());
                        // The worker's __system tuples (SystemMetricsTest) are counted apart.
                        if ("__system".equals(((TaskInfo) values.get(0)).srcComponentId)) {
                            systemTuples++;
                        } else {
                            out.add(values);
                        }
                    }
                }
            }
            writer.written.removeIf(m -> m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES);
            return out;
        }

        List<StatsReport> reports() {
            List<StatsReport> out = new ArrayList<>();
            for (InstanceToStreamManager m : writer.written) {
                if (m.getMessageCase() == InstanceToStreamManager.MessageCase.STATS) {
                    out.add(m.getStats());
                }
            }
            writer.written.removeIf(m -> m.getMessageCase() == InstanceToStreamManager.MessageCase.STATS);
            return out;
        }
    }

    private static Map<String, Object> byName(List<?> points) {
        Map<String, Object> m = new HashMap<>();
        for (Object o : points) {
            DataPoint p = (DataPoint) o;
            m.put(p.name, p.value);
        }
        return m;
    }

    @Test
    void eachBucketFiresOnItsOwnPeriodWithItsOwnMetrics() {
        Rig r = new Rig("{\"topology.builtin.metrics.bucket.size.secs\": 3, \"egret.stats.interval.secs\": 0}", true);
        CountMetric two = r.metrics.register("every-2", new CountMetric(), 2);
        CountMetric three = r.metrics.register("every-3", new CountMetric(), 3);
        long t0 = 1_000 * SEC;
        r.em.start(t0);
        assertEquals(t0 + 2 * SEC, r.em.nextDeadline());

        two.incrBy(5);
        three.incrBy(7);
        r.emitter.emit("default", List.of("w"));
        r.em.tick(t0 + SEC);
        assertEquals(List.of(), r.metricsTuples(), "nothing due after 1 s");

        r.em.tick(t0 + 2 * SEC);
        List<List<Object>> at2 = r.metricsTuples();
        assertEquals(1, at2.size());
        TaskInfo info = (TaskInfo) at2.get(0).get(0);
        assertEquals(2, info.updateIntervalSecs);
        assertEquals("spout", info.srcComponentId);
        assertEquals(2, info.srcTaskId);
        assertEquals(Map.of("every-2", 5L), byName((List<?>) at2.get(0).get(1)));
        assertEquals(t0 + 3 * SEC, r.em.nextDeadline());

        r.em.tick(t0 + 3 * SEC);
        List<List<Object>> at3 = r.metricsTuples();
        assertEquals(1, at3.size());
        assertEquals(3, ((TaskInfo) at3.get(0).get(0)).updateIntervalSecs);
        Map<String, Object> p3 = byName((List<?>) at3.get(0).get(1));
        assertEquals(7L, p3.get("every-3"));
        assertEquals(Map.of("default", 1L), p3.get(TaskMetrics.EMIT_COUNT), "built-ins ride the 3 s bucket");
        assertEquals(Map.of("default", 0L), p3.get(TaskMetrics.TRANSFER_COUNT), "nobody subscribes to default");
        assertEquals(1, r.systemTuples, "the worker metrics ride the built-in bucket only");

        r.em.tick(t0 + 4 * SEC);
        assertEquals(Map.of("every-2", 0L), byName((List<?>) r.metricsTuples().get(0).get(1)));
        // A late tick skips the missed buckets instead of bursting.
        r.em.tick(t0 + 20 * SEC);
        assertEquals(2, r.metricsTuples().size(), "one tuple per bucket size, not per missed bucket");
        assertTrue(r.em.nextDeadline() > t0 + 20 * SEC);
    }

    @Test
    void withoutAConsumerNothingIsEmitted() {
        Rig r = new Rig("{\"topology.builtin.metrics.bucket.size.secs\": 1, \"egret.stats.interval.secs\": 0}", false);
        CountMetric c = r.metrics.register("c", new CountMetric(), 1);
        r.em.start(0);
        c.incr();
        assertEquals(Long.MAX_VALUE, r.em.nextDeadline());
        r.em.tick(5 * SEC);
        assertEquals(List.of(), r.metricsTuples());
    }

    @Test
    void statsReportsAreExactDeltasAndSurviveAFailedWrite() {
        Rig r = new Rig("{\"egret.stats.interval.secs\": 5}", false);
        r.em.start(0);
        // The first report goes out at once, empty: the master knows the executor.
        assertEquals(0, r.em.nextDeadline());
        r.em.tick(0);
        List<StatsReport> announce = r.reports();
        assertEquals(1, announce.size());
        assertEquals("spout-0", announce.get(0).getInstanceId());
        assertEquals(0, announce.get(0).getTasksCount());
        assertEquals(5 * SEC, r.em.nextDeadline());
        r.metrics.stats().emitted("default", 1);
        r.metrics.stats().emitted("default", 1);
        r.metrics.stats().spoutAcked("default", 4_000_000);
        r.em.tick(4 * SEC);
        assertEquals(List.of(), r.reports());
        r.em.tick(5 * SEC);
        List<StatsReport> first = r.reports();
        assertEquals(1, first.size());
        assertEquals("spout-0", first.get(0).getInstanceId());
        TaskStatsDelta d = first.get(0).getTasks(0);
        assertEquals(2, d.getTaskId());
        assertEquals(Map.of("default", 2L), d.getEmittedMap());
        assertEquals(Map.of("default", 1L), d.getAckedMap());
        assertEquals(4.0, d.getCompleteMsSumMap().get("default"), 1e-9);

        r.em.tick(10 * SEC);
        assertEquals(List.of(), r.reports(), "nothing new: no report");

        // The connection is down for one report: its deltas are merged into the next.
        r.metrics.stats().emitted("default", 1);
        r.writer.broken = true;
        r.sink.disconnect();
        r.em.tick(15 * SEC);
        r.writer.broken = false;
        r.sink.connect(r.writer);
        r.writer.written.clear();
        r.metrics.stats().emitted("default", 1);
        r.metrics.stats().spoutFailed("default");
        r.em.tick(20 * SEC);
        List<StatsReport> merged = r.reports();
        assertEquals(1, merged.size());
        assertEquals(Map.of("default", 2L), merged.get(0).getTasks(0).getEmittedMap());
        assertEquals(Map.of("default", 1L), merged.get(0).getTasks(0).getFailedMap());
        assertTrue(merged.get(0).getTasks(0).getAckedMap().isEmpty());
    }
}

package org.apache.storm.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseWindowedBolt;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.windowing.TupleWindow;
import org.junit.jupiter.api.Test;

class WindowedBoltExecutorTest {
    /** Emits the sum of field v over each window, unanchored, and keeps the windows. */
    static final class SumBolt extends BaseWindowedBolt {
        transient List<TupleWindow> windows;
        private transient OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.windows = new ArrayList<>();
        }

        @Override
        public void execute(TupleWindow window) {
            windows.add(window);
            long sum = 0;
            for (Tuple t : window.get()) {
                sum += t.getLongByField("v");
            }
            collector.emit(new Values(sum));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("sum"));
        }
    }

    private static Map<String, Object> conf(BaseWindowedBolt bolt) {
        return new HashMap<>(bolt.getComponentConfiguration());
    }

    @Test
    void countWindowAnchorsEmitsToTheWindowAndAcksOnExpiry() throws Exception {
        SumBolt bolt = new SumBolt();
        bolt.withTumblingWindow(Count.of(2));
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout());
        b.setBolt("sum", bolt).shuffleGrouping("spout");
        TopologyView view = Fakes.view(b);
        WindowedBoltExecutor exec = new WindowedBoltExecutor(bolt);
        Fakes.Collector out = new Fakes.Collector();
        exec.prepare(conf(bolt), Fakes.context(view, "sum"), new OutputCollector(out));
        Tuple[] t = new Tuple[5];
        for (int i = 0; i < t.length; i++) {
            t[i] = Fakes.tuple(view, "spout", "default", (long) i + 1, 0L);
        }
        exec.execute(t[0]);
        exec.execute(t[1]);
        assertEquals(1, out.emits.size());
        assertEquals(List.of(3L), out.emits.get(0).values);
        assertEquals(List.of(t[0], t[1]), out.emits.get(0).anchors, "anchored to the window's tuples");
        assertTrue(out.acked.isEmpty(), "tuples are acked when they leave the window, not before");
        exec.execute(t[2]);
        assertTrue(out.acked.isEmpty(), "as in Storm, tuples expire when the next window is evaluated");
        exec.execute(t[3]);
        assertEquals(List.of(t[0], t[1]), out.acked);
        assertEquals(List.of(7L), out.emits.get(1).values);
        assertEquals(List.of(t[0], t[1]), bolt.windows.get(1).getExpired());
        assertEquals(List.of(t[2], t[3]), bolt.windows.get(1).getNew());
        assertEquals(null, bolt.windows.get(1).getStartTimestamp(), "a count window has no start");
        exec.cleanup();
    }

    @Test
    void eventTimeWindowsFollowTheWatermarkAndSendLateTuplesToTheirStream() throws Exception {
        SumBolt bolt = new SumBolt();
        bolt.withTumblingWindow(Duration.of(10)).withTimestampField("ts").withLag(Duration.of(2))
                .withWatermarkInterval(Duration.minutes(10)).withLateTupleStream("late");
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout());
        b.setBolt("sum", bolt).shuffleGrouping("spout");
        TopologyView view = Fakes.view(b);
        WindowedBoltExecutor exec = new WindowedBoltExecutor(bolt);
        Fakes.Collector out = new Fakes.Collector();
        exec.prepare(conf(bolt), Fakes.context(view, "sum"), new OutputCollector(out));
        Tuple a = Fakes.tuple(view, "spout", "default", 1L, 5L);
        Tuple c = Fakes.tuple(view, "spout", "default", 2L, 9L);
        Tuple d = Fakes.tuple(view, "spout", "default", 4L, 14L);
        exec.execute(a);
        exec.execute(c);
        exec.execute(d);
        exec.waterMarkEventGenerator.run();
        // Watermark 14 - 2 = 12: the window (0, 10] holds a and c.
        assertEquals(1, bolt.windows.size());
        assertEquals(List.of(a, c), bolt.windows.get(0).get());
        assertEquals(Long.valueOf(0), bolt.windows.get(0).getStartTimestamp());
        assertEquals(Long.valueOf(10), bolt.windows.get(0).getEndTimestamp());
        assertEquals(List.of(3L), out.emits.get(0).values);
        Tuple late = Fakes.tuple(view, "spout", "default", 8L, 11L);
        exec.execute(late);
        Fakes.Emit lateEmit = out.emits.get(1);
        assertEquals("late", lateEmit.stream);
        assertSame(late, lateEmit.values.get(0));
        assertEquals(List.of(late), lateEmit.anchors);
        assertEquals(List.of(late), out.acked, "a late tuple is acked at once");
        exec.cleanup();
    }

    @Test
    void lateStreamIsDeclaredByTheExecutor() {
        SumBolt bolt = new SumBolt();
        bolt.withTumblingWindow(Count.of(2)).withTimestampField("ts").withLateTupleStream("late");
        OutputFieldsGetter getter = new OutputFieldsGetter();
        new WindowedBoltExecutor(bolt).declareOutputFields(getter);
        assertTrue(getter.getFieldsDeclaration().containsKey("late"));
        assertEquals(List.of(WindowedBoltExecutor.LATE_TUPLE_FIELD),
                getter.getFieldsDeclaration().get("late").get_output_fields());
    }

    @Test
    void durationWindowLongerThanTheMessageTimeoutIsRejected() throws Exception {
        SumBolt bolt = new SumBolt();
        bolt.withWindow(Duration.seconds(25), Duration.seconds(10));
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout());
        b.setBolt("sum", bolt).shuffleGrouping("spout");
        TopologyView view = Fakes.view(b);
        Map<String, Object> conf = conf(bolt);
        conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 30);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WindowedBoltExecutor(bolt)
                .prepare(conf, Fakes.context(view, "sum"), new OutputCollector(new Fakes.Collector())));
        assertTrue(e.getMessage().contains("35000"), e.getMessage());
    }
}

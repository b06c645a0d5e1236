package org.apache.storm.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.egret.instance.TopologyView;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.storm.state.InMemoryKeyValueState;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseStatefulWindowedBolt;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.windowing.TupleWindow;
import org.apache.storm.windowing.persistence.WindowState.WindowPartition;
import org.junit.jupiter.api.Test;

/** A persistent window resumes from its committed state (Storm's own test only uses mocks). */
class PersistentWindowedBoltExecutorTest {
    static final class SumBolt extends BaseStatefulWindowedBolt<KeyValueState<String, Long>> {
        final List<Long> sums = new ArrayList<>();

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        }

        @Override
        public void initState(KeyValueState<String, Long> state) {
        }

        @Override
        public void execute(TupleWindow window) {
            long sum = 0;
            for (Iterator<Tuple> it = window.getIter(); it.hasNext(); ) {
                sum += it.next().getLongByField("v");
            }
            sums.add(sum);
        }
    }

    private final KeyValueState<Long, WindowPartition<Tuple>> partitions = new InMemoryKeyValueState<>();
    private final KeyValueState<String, Deque<Long>> ids = new InMemoryKeyValueState<>();
    private final KeyValueState<String, Optional<?>> system = new InMemoryKeyValueState<>();

    private PersistentWindowedBoltExecutor<KeyValueState<String, Long>> start(SumBolt bolt, TopologyView view,
            Fakes.Collector out) {
        PersistentWindowedBoltExecutor<KeyValueState<String, Long>> exec = new PersistentWindowedBoltExecutor<>(bolt);
        Map<String, Object> conf = new HashMap<>(bolt.getComponentConfiguration());
        exec.prepare(conf, Fakes.context(view, "sum"), new OutputCollector(out), partitions, ids, system);
        exec.initState(new InMemoryKeyValueState<>());
        return exec;
    }

    @Test
    void aRestartedExecutorResumesTheCommittedWindow() throws Exception {
        SumBolt bolt = new SumBolt();
        bolt.withTumblingWindow(Count.of(2)).withPersistence();
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Fakes.ValueSpout());
        b.setBolt("sum", bolt).shuffleGrouping("spout");
        TopologyView view = Fakes.view(b);
        Fakes.Collector out = new Fakes.Collector();
        PersistentWindowedBoltExecutor<KeyValueState<String, Long>> first = start(bolt, view, out);
        Tuple[] t = new Tuple[4];
        for (int i = 0; i < t.length; i++) {
            t[i] = Fakes.tuple(view, "spout", "default", (long) i + 1, 0L);
        }
        first.execute(t[0]);
        first.execute(t[1]);
        first.execute(t[2]);
        assertEquals(List.of(3L), bolt.sums);
        assertEquals(List.of(t[0], t[1], t[2]), out.acked, "each tuple is acked as it is stored");
        first.prePrepare(1);
        first.preCommit(1);
        first.cleanup();

        // A new executor over the committed states: t[2] is still in the window.
        SumBolt again = new SumBolt();
        again.withTumblingWindow(Count.of(2)).withPersistence();
        PersistentWindowedBoltExecutor<KeyValueState<String, Long>> second = start(again, view,
                new Fakes.Collector());
        second.execute(t[3]);
        assertEquals(List.of(7L), again.sums);
        second.cleanup();
    }
}

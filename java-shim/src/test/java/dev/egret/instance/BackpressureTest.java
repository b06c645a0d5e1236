package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.Throttle;
import dev.egret.proto.Topology;
import dev.egret.proto.TreeOutcome;
import dev.egret.proto.TupleBatch;
import dev.egret.proto.TupleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Backpressure in the instance, against a fake stream manager: {@code Throttle(true)} stops
 * {@code nextTuple} while tree events are still processed (the spout's ack is called);
 * {@code Throttle(false)} resumes it.
 */
class BackpressureTest {
    /** nextTuple calls of {@link CountingSpout}, across its (single) instance. */
    static final AtomicLong CALLS = new AtomicLong();
    static final Set<Object> ACKED = ConcurrentHashMap.newKeySet();

    /** Emits one tracked tuple per nextTuple call, message id = the call number. */
    static final class CountingSpout implements ISpout {
        private transient SpoutOutputCollector collector;

        @Override
        public void open(Map<String, Object> conf, TopologyContext ctx, SpoutOutputCollector c) {
            collector = c;
        }

        @Override
        public void close() {
        }

        @Override
        public void activate() {
        }

        @Override
        public void deactivate() {
        }

        @Override
        public void nextTuple() {
            long n = CALLS.incrementAndGet();
            collector.emit(new Values("m" + n), n);
            try {
                // Keeps the test's traffic small; a real spout may be as fast as it likes.
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void ack(Object msgId) {
            ACKED.add(msgId);
        }

        @Override
        public void fail(Object msgId) {
        }
    }

    private Path dir;
    private FakeSm sm;

    @BeforeEach
    void setUp() throws Exception {
        CALLS.set(0);
        ACKED.clear();
        dir = Files.createTempDirectory("egret-backpressure-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        sm.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static void throttle(FakeSm.Conn c, boolean on) throws Exception {
        c.send(StreamManagerToInstance.newBuilder().setThrottle(Throttle.newBuilder().setThrottled(on)).build());
    }

    private static void awaitCallsAbove(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (CALLS.get() <= n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nextTuple was not called past " + n);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void throttleStopsNextTupleWhileTreeEventsStillFlowAndItsLiftResumesIt() throws Exception {
        Topology topo = Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson("{}")
                .addComponents(Plans.bolt("sink", 1, new AckingComponents.AckingBolt())
                        .addInputs(Plans.input("spout", "default", Plans.shuffle())))
                .addComponents(Plans.spout("spout", 1, new CountingSpout())
                        .addStreams(Plans.stream("default", "word")))
                .build();
        sm.startInstance("spout-0", 0);
        FakeSm.Conn c = sm.accept("spout-0");
        c.assign(FakeSm.assignment(topo, dir, "spout-0", "spout", 2));
        c.awaitReady();
        List<TupleData> emitted = new ArrayList<>();
        for (TupleBatch b : c.batches(1, 5000)) {
            emitted.addAll(b.getTuplesList());
        }
        assertFalse(emitted.isEmpty(), "the spout emits while not throttled");

        throttle(c, true);
        // A tree completes while throttled: the ack callback still runs.
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, emitted.get(0).getRoots(0));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!ACKED.contains(1L)) {
            assertTrue(System.nanoTime() < deadline, "the spout's ack was not called while throttled");
            Thread.sleep(5);
        }
        // The instance handles its messages in order: the throttle, sent before the tree event
        // whose ack ran on the executor thread, is applied and no nextTuple is in progress.
        long stopped = CALLS.get();
        Thread.sleep(300);
        assertEquals(stopped, CALLS.get(), "no nextTuple while throttled");
        // Drain what was emitted before the throttle; nothing more comes.
        c.batches(Integer.MAX_VALUE, 200);
        assertTrue(c.batches(1, 200).isEmpty(), "nothing emitted while throttled");

        throttle(c, false);
        awaitCallsAbove(stopped);
        assertFalse(c.batches(1, 5000).isEmpty(), "the spout emits again");
        c.close();
    }
}

package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.proto.AckEntry;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.RootId;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.storm.spout.ISpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Flow control of the instance against a fake stream manager: the input queue is bounded
 * in bytes, a spout whose socket is not read keeps getting its ack callbacks, and a bolt
 * busy with a long inbound batch still sends its acks on the flush timer.
 */
class FlowControlTest {
    static final AtomicLong CALLS = new AtomicLong();
    static final Set<Object> ACKED = ConcurrentHashMap.newKeySet();
    static final AtomicInteger EXECUTED = new AtomicInteger();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    /** Emits one tracked tuple of {@code payload} bytes per call, message id = the call number. */
    static final class BigSpout implements ISpout {
        private final int payload;
        private transient SpoutOutputCollector collector;

        BigSpout(int payload) {
            this.payload = payload;
        }

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
            collector.emit(new Values(new byte[payload]), n);
        }

        @Override
        public void ack(Object msgId) {
            ACKED.add(msgId);
        }

        @Override
        public void fail(Object msgId) {
        }
    }

    /** Waits for {@link #gate}, sleeps {@code sleepMs}, then acks each tuple. */
    static final class SlowBolt implements IBolt {
        private final long sleepMs;
        private transient OutputCollector collector;

        SlowBolt(long sleepMs) {
            this.sleepMs = sleepMs;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext ctx, OutputCollector c) {
            collector = c;
        }

        @Override
        public void execute(Tuple input) {
            try {
                gate.await();
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            collector.ack(input);
            EXECUTED.incrementAndGet();
        }

        @Override
        public void cleanup() {
        }
    }

    private Path dir;
    private FakeSm sm;

    @BeforeEach
    void setUp() throws Exception {
        CALLS.set(0);
        ACKED.clear();
        EXECUTED.set(0);
        gate = new CountDownLatch(0);
        dir = Files.createTempDirectory("egret-flow-test");
        sm = new FakeSm(dir.resolve("sm.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        gate.countDown();
        sm.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** bolt: task 1; spout: task 2. */
    private static Topology topology(String config, java.io.Serializable bolt, java.io.Serializable spout) {
        return Topology.newBuilder().setName("t").setId("t-1-1").setConfigJson(config)
                .addComponents(Plans.bolt("bolt", 1, bolt)
                        .addInputs(Plans.input("spout", "default", Plans.shuffle())))
                .addComponents(Plans.spout("spout", 1, spout).addStreams(Plans.stream("default", "payload")))
                .build();
    }

    private FakeSm.Conn start(Topology topo, String component, int task) throws Exception {
        String id = component + "-0";
        sm.startInstance(id, 0);
        FakeSm.Conn c = sm.accept(id);
        c.assign(FakeSm.assignment(topo, dir, id, component, task));
        c.awaitReady();
        return c;
    }

    /** Waits until {@code counter} has not moved for {@code quietMillis}; returns its value. */
    private static long awaitStill(LongSupplier counter, long quietMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        long last = counter.getAsLong();
        long since = System.nanoTime();
        while (System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(quietMillis)) {
            assertTrue(System.nanoTime() < deadline, "still moving: " + counter.getAsLong());
            Thread.sleep(20);
            long now = counter.getAsLong();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            }
        }
        return last;
    }

    private static void awaitAcked(int n, long stalled) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ACKED.size() < n) {
            assertTrue(System.nanoTime() < deadline, "ack callbacks stalled while the socket was not read: "
                    + ACKED + " after " + stalled + " emits");
            Thread.sleep(5);
        }
    }

    @Test
    void aSpoutWhoseSocketIsNotReadStopsEmittingButStillGetsItsAckCallbacks() throws Exception {
        Topology topo = topology("{\"egret.instance.outbound.bytes\": 262144}", new SlowBolt(0),
                new BigSpout(8 * 1024));
        FakeSm.Conn c = start(topo, "spout", 2);
        List<TupleData> emitted = new ArrayList<>();
        for (TupleBatch b : c.batches(1, 5000)) {
            emitted.addAll(b.getTuplesList());
        }
        assertTrue(!emitted.isEmpty(), "the spout emits");

        // The stream manager stops reading the spout (its backpressure): the spout stops emitting
        // once its socket and its bounded outgoing queue are full.
        c.pauseReading();
        long stalled = awaitStill(CALLS::get, 500);
        // What it buffered is bounded: socket buffers plus the 256 KiB queue, in 8 KiB tuples.
        assertTrue(stalled - emitted.size() < 400, "emitted " + stalled + " tuples while not read");
        c.send(StreamManagerToInstance.newBuilder().setThrottle(Throttle.newBuilder().setThrottled(true)).build());
        // Trees complete meanwhile: the spout's ack callbacks run although nothing it writes is read.
        // The first one's callback also proves the throttle before it has been applied (one inbound
        // order): from then on nextTuple must not run, however the writer thread was scheduled.
        RootId first = emitted.get(0).getRoots(0);
        RootId last = emitted.get(emitted.size() - 1).getRoots(0);
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, first);
        awaitAcked(1, stalled);
        assertTrue(ACKED.contains(1L));
        long throttledAt = CALLS.get();
        assertTrue(throttledAt - emitted.size() < 400, "emitted " + throttledAt + " tuples while not read");
        c.sendEvent(TreeOutcome.TREE_OUTCOME_COMPLETED, last);
        awaitAcked(2, stalled);
        Thread.sleep(200);
        assertEquals(throttledAt, CALLS.get(), "no nextTuple while the outgoing side is full and throttled");

        c.resumeReading();
        c.send(StreamManagerToInstance.newBuilder().setThrottle(Throttle.newBuilder().setThrottled(false)).build());
        long resumeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (CALLS.get() <= throttledAt) {
            assertTrue(System.nanoTime() < resumeDeadline, "the spout did not resume");
            Thread.sleep(5);
        }
        c.close();
    }

    @Test
    void aSlowBoltSendsItsAcksOnTheFlushTimerWhileWorkingThroughALongBatch() throws Exception {
        // 30 tuples of 40 ms each in one inbound message: 1.2 s of work, far below the batch size.
        Topology topo = topology("{\"egret.batch.flush.ms\": 5}", new SlowBolt(40), new BigSpout(1));
        FakeSm.Conn c = start(topo, "bolt", 1);
        TupleData[] tuples = new TupleData[30];
        for (int i = 0; i < tuples.length; i++) {
            tuples[i] = FakeSm.tuple(1, 2, List.of("v" + i), 100 + i, FakeSm.root(2, 1000 + i));
        }
        long sent = System.nanoTime();
        c.sendTuples(tuples);
        List<Long> arrivals = new ArrayList<>();
        int acks = 0;
        long deadline = sent + TimeUnit.SECONDS.toNanos(10);
        while (acks < tuples.length) {
            InstanceToStreamManager m = c.poll(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            assertTrue(m != null, "only " + acks + " acks arrived");
            if (m.getMessageCase() == InstanceToStreamManager.MessageCase.TUPLES) {
                for (AckEntry a : m.getTuples().getAcksList()) {
                    acks++;
                    arrivals.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
                }
            }
        }
        // The first ack is due after one tuple (40 ms) plus the flush interval, not after the batch (1.2 s).
        assertTrue(arrivals.get(0) < 600, "first ack after " + arrivals.get(0) + " ms: " + arrivals);
        assertTrue(arrivals.get(9) < arrivals.get(29), "acks arrived all at once: " + arrivals);
        assertEquals(30, EXECUTED.get());
        c.close();
    }

    @Test
    void theInstanceStopsReadingItsSocketAtTheInboundByteBound() throws Exception {
        gate = new CountDownLatch(1);
        Topology topo = topology("{\"egret.instance.inbound.bytes\": 262144}", new SlowBolt(0), new BigSpout(1));
        FakeSm.Conn c = start(topo, "bolt", 1);
        int frames = 60;
        AtomicInteger written = new AtomicInteger();
        byte[] payload = new byte[64 * 1024];
        Thread sender = new Thread(() -> {
            try {
                for (int i = 0; i < frames; i++) {
                    c.sendTuples(FakeSm.tuple(1, 2, List.of(payload), 0));
                    written.incrementAndGet();
                }
            } catch (java.io.IOException e) {
                // The test fails on the count below.
            }
        }, "fake-sm-sender");
        sender.setDaemon(true);
        sender.start();
        // The bolt is stuck in its first execute: the reader fills the queue up to its byte
        // bound (256 KiB: 4 frames of 64 KiB, the one executing included), holds one more, and
        // the socket's buffers take a few; then the stream manager's writes block. A bound of
        // 64 messages would have let all 60 frames (3.75 MiB) through.
        long still = awaitStill(written::get, 500);
        assertTrue(still < 20, still + " frames of 64 KiB written into a 256 KiB inbound bound");
        assertTrue(sender.isAlive(), "the stream manager's writes should block");

        gate.countDown();
        sender.join(10_000);
        assertEquals(frames, written.get());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (EXECUTED.get() < frames) {
            assertTrue(System.nanoTime() < deadline, "executed " + EXECUTED.get() + " of " + frames);
            Thread.sleep(10);
        }
        c.close();
    }
}

package dev.egret.multilang;

import static dev.egret.multilang.MultilangFixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.instance.TopologyView;
import dev.egret.multilang.MultilangFixtures.BoltRecorder;
import dev.egret.multilang.MultilangFixtures.Emit;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.ShellBolt;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ShellBolt against a Python subprocess speaking the multilang protocol (testbolt.py). */
class ShellBoltTest {
    @TempDir
    Path tmp;

    private final TopologyView view = MultilangFixtures.view();
    private ShellBolt bolt;
    private BoltRecorder out;
    private TopologyContext ctx;

    @BeforeAll
    static void noHalt() {
        System.setProperty(ShellSupport.HALT_PROPERTY, "false");
    }

    @AfterEach
    void stop() {
        if (bolt != null) {
            bolt.cleanup();
        }
    }

    private void start(Map<String, Object> conf, Map<String, String> env) throws Exception {
        Path code = MultilangFixtures.codeDir(tmp);
        ctx = MultilangFixtures.context(view, "split", code);
        bolt = new ShellBolt("python3", "testbolt.py");
        if (env != null) {
            bolt.setEnv(env);
        }
        out = new BoltRecorder();
        bolt.prepare(conf, ctx, new OutputCollector(out));
    }

    private void start() throws Exception {
        start(MultilangFixtures.conf(), null);
    }

    private Tuple tuple(Object... values) {
        return MultilangFixtures.tuple(view, ctx, values);
    }

    @Test
    void splitsASentenceIntoAnchoredWordsAndAcks() throws Exception {
        start();
        Tuple in = tuple("split", "the quick fox");
        bolt.execute(in);
        await(() -> out.acked.size() == 1, 10_000, "the ack");
        assertEquals(3, out.emits.size());
        for (int i = 0; i < 3; i++) {
            Emit e = out.emits.get(i);
            assertEquals("default", e.stream());
            assertEquals(List.of(in), e.anchors());
            assertNull(e.directTask());
        }
        assertEquals(List.of("the"), out.emits.get(0).values());
        assertEquals(List.of("quick"), out.emits.get(1).values());
        assertEquals(List.of("fox"), out.emits.get(2).values());
        assertEquals(in, out.acked.get(0));
        assertTrue(out.errors.isEmpty(), out.errorText());
        // The handshake: the subprocess wrote its pid file into the pid directory.
        try (Stream<Path> pids = Files.list(Path.of(ctx.getPIDDir()))) {
            assertEquals(1, pids.count());
        }
    }

    @Test
    void handshakeCarriesConfAndContextAndRunsInResources() throws Exception {
        start();
        bolt.execute(tuple("context"));
        await(() -> out.acked.size() == 1, 10_000, "the ack");
        List<Object> v = out.emits.get(0).values();
        assertEquals("split", v.get(0));
        assertEquals(1L, v.get(1));
        assertEquals("v", v.get(2));
        assertEquals(new File(tmp.toFile(), "resources").getCanonicalPath(), new File((String) v.get(3)).getCanonicalPath());
    }

    @Test
    void answersEmitsWithTaskIdsAndHonoursStreamAndNeedTaskIds() throws Exception {
        start();
        bolt.execute(tuple("taskids"));
        await(() -> out.acked.size() == 1, 10_000, "the ack");
        assertEquals(2, out.emits.size());
        assertEquals(List.of("x"), out.emits.get(0).values());
        assertTrue(out.emits.get(0).anchors().isEmpty(), "an emit without anchors is unanchored");
        Emit ids = out.emits.get(1);
        assertEquals("other", ids.stream());
        assertEquals(List.of(List.of(4L, 5L)), ids.values());
    }

    @Test
    void emitsDirectToTheGivenTask() throws Exception {
        start();
        Tuple in = tuple("direct", 7);
        bolt.execute(in);
        await(() -> out.acked.size() == 1, 10_000, "the ack");
        Emit e = out.emits.get(0);
        assertEquals(7, e.directTask());
        assertEquals("direct", e.stream());
        assertEquals(List.of(in), e.anchors());
    }

    @Test
    void failsByIdAndKeepsGoing() throws Exception {
        start();
        Tuple first = tuple("fail");
        bolt.execute(first);
        Tuple second = tuple("split", "a");
        bolt.execute(second);
        await(() -> out.acked.size() == 1, 10_000, "the ack");
        assertEquals(List.of(first), out.failed);
        assertEquals(List.of(second), out.acked);
    }

    @Test
    void logsAndReportsErrorsWithoutDying() throws Exception {
        start();
        bolt.execute(tuple("log"));
        bolt.execute(tuple("error"));
        await(() -> out.acked.size() == 2, 10_000, "two acks");
        assertEquals(1, out.errors.size(), out.errorText());
        assertTrue(out.errorText().contains("Shell Process Exception: something broke in python"), out.errorText());
        bolt.execute(tuple("split", "still alive"));
        await(() -> out.acked.size() == 3, 10_000, "the bolt keeps working after a reported error");
    }

    @Test
    void aDeadSubprocessIsReportedWithItsExitCodeAndStderr() throws Exception {
        start();
        bolt.execute(tuple("die"));
        await(() -> !out.errors.isEmpty(), 10_000, "the error report");
        String text = out.errorText();
        assertTrue(text.contains("exitCode:3"), text);
        assertTrue(text.contains("fatal: giving up on purpose"), text);
        assertThrows(RuntimeException.class, () -> bolt.execute(tuple("split", "too late")));
    }

    @Test
    void badJsonKillsTheBoltAndIsReported() throws Exception {
        start();
        bolt.execute(tuple("badjson"));
        await(() -> !out.errors.isEmpty(), 10_000, "the error report");
        assertTrue(out.errorText().contains("invalid JSON"), out.errorText());
    }

    @Test
    void heartbeatsKeepAQuietSubprocessAliveAndAMissedOneKillsIt() throws Exception {
        Map<String, Object> conf = MultilangFixtures.conf();
        // 2 s: a loaded machine may take most of a second to let python answer a heartbeat.
        conf.put("topology.subprocess.timeout.secs", 2);
        start(conf, null);
        // Idle for 2.5 timeouts: the subprocess answers the heartbeats, nothing is reported.
        Thread.sleep(5000);
        assertTrue(out.errors.isEmpty(), out.errorText());
        bolt.execute(tuple("hang"));
        await(() -> !out.errors.isEmpty(), 10_000, "the heartbeat timeout");
        assertTrue(out.errorText().contains("heartbeat timeout"), out.errorText());
    }

    @Test
    void boundsPendingTuplesAtMaxPending() throws Exception {
        Map<String, Object> conf = MultilangFixtures.conf();
        conf.put("topology.shellbolt.max.pending", 1);
        start(conf, null);
        for (int i = 0; i < 20; i++) {
            bolt.execute(tuple("split", "w" + i));
        }
        await(() -> out.acked.size() == 20, 10_000, "every tuple acked");
        assertEquals(20, out.emits.size());
    }
}

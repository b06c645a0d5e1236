package dev.egret.multilang;

import static dev.egret.multilang.MultilangFixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.egret.instance.TopologyView;
import dev.egret.multilang.MultilangFixtures.Emit;
import dev.egret.multilang.MultilangFixtures.SpoutRecorder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.storm.spout.ShellSpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ShellSpout against a node subprocess (testspout.js) and a Python one. */
class ShellSpoutTest {
    @TempDir
    Path tmp;

    private final TopologyView view = MultilangFixtures.view();
    private ShellSpout spout;
    private SpoutRecorder out;

    @BeforeAll
    static void noHalt() {
        System.setProperty(ShellSupport.HALT_PROPERTY, "false");
    }

    @AfterEach
    void stop() {
        if (spout != null) {
            spout.close();
        }
    }

    private void open(ShellSpout s, Map<String, Object> conf) throws Exception {
        Path code = MultilangFixtures.codeDir(tmp);
        TopologyContext ctx = MultilangFixtures.context(view, "spout", code);
        spout = s;
        out = new SpoutRecorder();
        spout.open(conf, ctx, new SpoutOutputCollector(out));
    }

    @Test
    void nodeSpoutEmitsWithIdsAnswersEachCommandUntilSync() throws Exception {
        open(new ShellSpout("node", "testspout.js"), MultilangFixtures.conf());
        spout.activate();
        for (int i = 0; i < 5; i++) {
            spout.nextTuple();
        }
        assertEquals(4, out.emits.size());
        for (int i = 0; i < 3; i++) {
            Emit e = out.emits.get(i);
            assertEquals("default", e.stream());
            assertEquals(List.of("word" + i), e.values());
            assertEquals("m" + i, e.messageId());
            assertNull(e.directTask());
        }
        Emit direct = out.emits.get(3);
        assertEquals(7, direct.directTask());
        assertEquals("direct", direct.stream());
        assertNull(direct.messageId());
        spout.ack("m0");
        assertTrue(out.errors.isEmpty(), out.errorText());
        spout.fail("m1");
        assertEquals(1, out.errors.size());
        assertTrue(out.errorText().contains("tuple m1 failed"), out.errorText());
        spout.deactivate();
    }

    @Test
    void aSubprocessThatStopsAnsweringIsKilledAfterTheTimeout() throws Exception {
        Map<String, Object> conf = MultilangFixtures.conf();
        conf.put("topology.subprocess.timeout.secs", 1);
        open(new ShellSpout("node", "testspout.js").setEnv(Map.of("HANG", "1")), conf);
        long start = System.nanoTime();
        assertThrows(RuntimeException.class, () -> spout.nextTuple());
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 900 && ms < 10_000, "took " + ms + " ms");
        assertTrue(out.errorText().contains("heartbeat timeout"), out.errorText());
        assertThrows(RuntimeException.class, () -> spout.nextTuple());
    }

    @Test
    void aSubprocessThatExitsIsReportedWithItsExitCode() throws Exception {
        String script = "import json,os,sys\n"
                + "lines=[]\n"
                + "while True:\n"
                + "    l=sys.stdin.readline().rstrip('\\n')\n"
                + "    if l=='end': break\n"
                + "    lines.append(l)\n"
                + "setup=json.loads('\\n'.join(lines))\n"
                + "sys.stdout.write(json.dumps({'pid': os.getpid()})+'\\nend\\n'); sys.stdout.flush()\n"
                + "sys.stderr.write('spout is leaving\\n'); sys.exit(4)\n";
        open(new ShellSpout("python3", "-c", script), MultilangFixtures.conf());
        assertThrows(RuntimeException.class, () -> spout.nextTuple());
        await(() -> !out.errors.isEmpty(), 5_000, "the error report");
        String text = out.errorText();
        assertTrue(text.contains("exitCode:4"), text);
        assertTrue(text.contains("spout is leaving"), text);
    }
}

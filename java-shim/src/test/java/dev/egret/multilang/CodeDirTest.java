package dev.egret.multilang;

import static dev.egret.multilang.MultilangFixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.egret.instance.CodeDir;
import dev.egret.instance.TopologyView;
import dev.egret.multilang.MultilangFixtures.BoltRecorder;
import dev.egret.multilang.MultilangFixtures.SpoutRecorder;
import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.storm.spout.ShellSpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.ShellBolt;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's resources/ in the code directory, and storm-starter's own Python bolt running from it. */
class CodeDirTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void noHalt() {
        System.setProperty(ShellSupport.HALT_PROPERTY, "false");
    }

    @Test
    void extractsResourcesOnlyAndRefusesEntriesEscapingTheDirectory() throws Exception {
        Path jar = tmp.resolve("user.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            put(out, "resources/a.py", "#!/usr/bin/env python3\nprint(1)\n");
            put(out, "resources/sub/b.txt", "b");
            put(out, "resources/../evil.txt", "evil");
            put(out, "com/acme/Main.class", "x");
        }
        Path target = tmp.resolve("work").resolve("resources");
        assertEquals(2, CodeDir.extractFrom(jar.toFile(), target));
        assertEquals("b", Files.readString(target.resolve("sub/b.txt")));
        assertTrue(Files.isExecutable(target.resolve("a.py")), "a #! script is made executable");
        assertFalse(Files.exists(tmp.resolve("work").resolve("evil.txt")));
        assertFalse(Files.exists(target.resolve("com")));
        // A restarted instance finds the files there and replaces them.
        assertEquals(2, CodeDir.extractFrom(jar.toFile(), target));
    }

    private static void put(JarOutputStream out, String name, String text) throws Exception {
        out.putNextEntry(new JarEntry(name));
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
    }

    /** storm-starter 1.2.2's WordCountTopology bolt: {@code new ShellBolt("python", "splitsentence.py")}. */
    @Test
    void stormStartersSplitSentenceRunsUnderShellBolt() throws Exception {
        File starter = new File(System.getProperty("user.home"),
                ".m2/repository/org/apache/storm/storm-starter/1.2.2/storm-starter-1.2.2.jar");
        assumeTrue(starter.isFile(), "storm-starter 1.2.2 is not in the local Maven repository");
        Path code = tmp.resolve("code");
        int files = CodeDir.extractFrom(starter, code.resolve("resources"));
        assertTrue(files > 0);
        assertTrue(Files.isRegularFile(code.resolve("resources/splitsentence.py")));
        assertTrue(Files.isRegularFile(code.resolve("resources/storm.py")));

        TopologyView view = MultilangFixtures.view();
        TopologyContext ctx = MultilangFixtures.context(view, "split", code);
        ShellBolt bolt = new ShellBolt("python", "splitsentence.py");
        BoltRecorder out = new BoltRecorder();
        bolt.prepare(MultilangFixtures.conf(), ctx, new OutputCollector(out));
        try {
            Tuple in = MultilangFixtures.tuple(view, ctx, "an apple a day");
            bolt.execute(in);
            await(() -> out.acked.size() == 1, 15_000, "the ack from storm.py");
            assertEquals(4, out.emits.size());
            assertEquals(List.of("an"), out.emits.get(0).values());
            assertEquals(List.of("day"), out.emits.get(3).values());
            assertEquals(List.of(in), out.emits.get(3).anchors());
            assertTrue(out.errors.isEmpty(), out.errorText());
        } finally {
            bolt.cleanup();
        }
    }

    /** storm-starter 1.2.2's node spout, {@code randomsentence.js} with its {@code storm.js}. */
    @Test
    void stormStartersRandomSentenceSpoutRunsUnderShellSpout() throws Exception {
        File starter = new File(System.getProperty("user.home"),
                ".m2/repository/org/apache/storm/storm-starter/1.2.2/storm-starter-1.2.2.jar");
        assumeTrue(starter.isFile(), "storm-starter 1.2.2 is not in the local Maven repository");
        Path code = tmp.resolve("code");
        CodeDir.extractFrom(starter, code.resolve("resources"));
        TopologyView view = MultilangFixtures.view();
        TopologyContext ctx = MultilangFixtures.context(view, "spout", code);
        ShellSpout spout = new ShellSpout("node", "randomsentence.js");
        SpoutRecorder out = new SpoutRecorder();
        spout.open(MultilangFixtures.conf(), ctx, new SpoutOutputCollector(out));
        try {
            spout.activate();
            spout.nextTuple();
            spout.nextTuple();
            assertEquals(2, out.emits.size());
            assertEquals(0L, out.emits.get(0).messageId());
            assertEquals(1L, out.emits.get(1).messageId());
            assertTrue(((String) out.emits.get(0).values().get(0)).contains(" "), "a sentence");
            spout.ack(0L);
            spout.fail(1L);
            spout.deactivate();
            assertTrue(out.errors.isEmpty(), out.errorText());
        } finally {
            spout.close();
        }
    }
}

package dev.egret.multilang;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.storm.multilang.BoltMsg;
import org.apache.storm.multilang.JsonSerializer;
import org.apache.storm.multilang.NoOutputException;
import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.multilang.SpoutMsg;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.utils.ShellBoltMessageQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The multilang framing and encoding, the bolt's message queue, and the interpreter fallback. */
class ProtocolTest {
    @TempDir
    Path tmp;

    private static JsonSerializer serializer(String fromProcess, ByteArrayOutputStream toProcess) {
        JsonSerializer s = new JsonSerializer();
        s.initialize(toProcess, new ByteArrayInputStream(fromProcess.getBytes(StandardCharsets.UTF_8)));
        return s;
    }

    @Test
    void everyMessageIsJsonFollowedByAnEndLine() throws Exception {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        JsonSerializer s = serializer("", sent);
        BoltMsg b = new BoltMsg();
        b.setId("7");
        b.setComp("spout");
        b.setStream("default");
        b.setTask(3);
        b.setTuple(List.of("a", 1, new Object() {
            @Override
            public String toString() {
                return "custom";
            }
        }));
        s.writeBoltMsg(b);
        SpoutMsg m = new SpoutMsg();
        m.setCommand("next");
        s.writeSpoutMsg(m);
        s.writeTaskIds(List.of(4, 5));
        String[] lines = sent.toString(StandardCharsets.UTF_8).split("\n", -1);
        assertEquals(7, lines.length, sent.toString(StandardCharsets.UTF_8));
        assertEquals("end", lines[1]);
        assertEquals("end", lines[3]);
        assertEquals("end", lines[5]);
        assertEquals("", lines[6]);
        ObjectMapper json = new ObjectMapper();
        assertEquals(Map.of("id", "7", "comp", "spout", "stream", "default", "task", 3,
                "tuple", List.of("a", 1, "custom")), json.readValue(lines[0], Map.class));
        assertEquals(Map.of("command", "next"), json.readValue(lines[2], Map.class));
        assertEquals(List.of(4, 5), json.readValue(lines[4], List.class));
    }

    @Test
    void readsMultiLineMessagesAndTheProtocolDefaults() throws Exception {
        JsonSerializer s = serializer("{\"command\": \"emit\",\n \"anchors\": [\"1\", 2],\n \"tuple\": [1, 2.5, \"x\"]}\nend\n"
                + "{\"command\":\"emit\",\"stream\":\"s\",\"task\":9,\"need_task_ids\":false,\"tuple\":[]}\nend\n"
                + "{\"command\":\"log\",\"msg\":\"hi\",\"level\":4}\nend\n", new ByteArrayOutputStream());
        ShellMsg a = s.readShellMsg();
        assertEquals("emit", a.getCommand());
        assertEquals(List.of("1", "2"), a.getAnchors());
        assertEquals(List.of(1L, 2.5, "x"), a.getTuple());
        assertTrue(a.areTaskIdsNeeded(), "need_task_ids defaults to true");
        assertNull(a.getStream());
        assertEquals(0, a.getTask());
        ShellMsg b = s.readShellMsg();
        assertEquals("s", b.getStream());
        assertEquals(9, b.getTask());
        assertFalse(b.areTaskIdsNeeded());
        ShellMsg c = s.readShellMsg();
        assertEquals("hi", c.getMsg());
        assertSame(ShellMsg.ShellLogLevel.ERROR, c.getLogLevel());
        assertThrows(NoOutputException.class, s::readShellMsg);
    }

    @Test
    void refusesBadJsonAMissingCommandAndATruncatedMessage() {
        assertThrows(IOException.class, () -> serializer("{nope\nend\n", new ByteArrayOutputStream()).readShellMsg());
        assertThrows(IOException.class, () -> serializer("{\"x\":1}\nend\n", new ByteArrayOutputStream()).readShellMsg());
        assertThrows(IOException.class, () -> serializer("[1]\nend\n", new ByteArrayOutputStream()).readShellMsg());
        assertThrows(NoOutputException.class,
                () -> serializer("{\"command\":\"sync\"}\n", new ByteArrayOutputStream()).readShellMsg());
    }

    @Test
    void handshakeSendsConfPidDirAndContextAndReadsThePid() throws Exception {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        JsonSerializer s = serializer("{\"pid\": 4242}\nend\n", sent);
        var view = MultilangFixtures.view();
        TopologyContext ctx = MultilangFixtures.context(view, "split", tmp);
        Number pid = s.connect(Map.of("k", "v", "obj", new Object()), ctx);
        assertEquals(4242L, pid.longValue());
        String text = sent.toString(StandardCharsets.UTF_8);
        assertTrue(text.endsWith("\nend\n"));
        @SuppressWarnings("unchecked")
        Map<String, Object> setup = new ObjectMapper().readValue(text.substring(0, text.length() - 5), Map.class);
        assertEquals("v", ((Map<?, ?>) setup.get("conf")).get("k"));
        assertEquals(ctx.getPIDDir(), setup.get("pidDir"));
        Map<?, ?> context = (Map<?, ?>) setup.get("context");
        assertEquals(1, context.get("taskid"));
        assertEquals("split", context.get("componentid"));
        assertEquals(Map.of("1", "split", "2", "spout"), context.get("task->component"));
        assertEquals(List.of("word"), ((Map<?, ?>) context.get("stream->outputfields")).get("default"));
        assertEquals(Map.of("spout", Map.of("default", List.of("word"))), context.get("source->stream->fields"));
        assertThrows(IOException.class, () -> serializer("{\"nopid\": 1}\nend\n", new ByteArrayOutputStream())
                .connect(Map.of(), ctx));
    }

    @Test
    void queueBoundsTuplesButNotTaskIdsWhichGoFirst() throws Exception {
        ShellBoltMessageQueue q = new ShellBoltMessageQueue(2);
        BoltMsg a = new BoltMsg();
        BoltMsg b = new BoltMsg();
        BoltMsg c = new BoltMsg();
        q.putBoltMsg(a);
        q.putBoltMsg(b);
        CountDownLatch putC = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                q.putBoltMsg(c);
                putC.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        assertFalse(putC.await(200, TimeUnit.MILLISECONDS), "a full queue blocks the producer");
        q.putTaskIds(List.of(1));
        assertEquals(List.of(1), q.poll(1, TimeUnit.SECONDS));
        assertSame(a, q.poll(1, TimeUnit.SECONDS));
        assertTrue(putC.await(5, TimeUnit.SECONDS), "taking one tuple frees a slot");
        assertSame(b, q.poll(1, TimeUnit.SECONDS));
        assertSame(c, q.poll(1, TimeUnit.SECONDS));
        assertNull(q.poll(10, TimeUnit.MILLISECONDS));
        t.join();
    }

    @Test
    void pythonFallsBackToPython3OnlyWhenPythonIsMissing() throws Exception {
        Path onlyPy3 = Files.createDirectories(tmp.resolve("only3"));
        Path both = Files.createDirectories(tmp.resolve("both"));
        for (Path p : List.of(onlyPy3.resolve("python3"), both.resolve("python3"), both.resolve("python"))) {
            Files.writeString(p, "#!/bin/sh\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String[] cmd = {"python", "splitsentence.py"};
        assertArrayEquals(new String[]{"python3", "splitsentence.py"},
                Commands.resolve(cmd, Map.of("PATH", onlyPy3.toString())));
        assertArrayEquals(cmd, Commands.resolve(cmd, Map.of("PATH", both.toString())));
        assertArrayEquals(new String[]{"node", "x.js"},
                Commands.resolve(new String[]{"node", "x.js"}, Map.of("PATH", onlyPy3.toString())));
        assertArrayEquals(new String[]{"python", "splitsentence.py"}, cmd, "the given command is not modified");
    }
}

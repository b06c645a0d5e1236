package dev.egret.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutorLogsTest {
    @TempDir
    Path dir;

    /** Runs {@code body} on a new thread routed to {@code log} (null: not routed) and joins it. */
    private static void onThread(Path log, Runnable body) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                if (log != null) {
                    ExecutorLogs.routeCurrentThread(log);
                }
                body.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }

    @Test
    void eachThreadWritesToItsOwnLogAndItsChildThreadsToo() throws Exception {
        ByteArrayOutputStream process = new ByteArrayOutputStream();
        PrintStream out = ExecutorLogs.routing(new PrintStream(process, true, StandardCharsets.UTF_8));
        Path a = dir.resolve("logs/count-1.log");
        Path b = dir.resolve("logs/split-2.log");
        Files.createDirectories(a.getParent());
        Files.writeString(a, "from before\n");
        List<Thread> threads = new ArrayList<>();
        onThread(a, () -> {
            out.println("a line of count-1");
            // A thread the executor starts (a timer, the user's own) inherits its log.
            Thread child = new Thread(() -> out.println("count-1's child"));
            threads.add(child);
            child.start();
        });
        onThread(b, () -> out.println("a line of split-2"));
        onThread(null, () -> out.println("the host's line"));
        for (Thread t : threads) {
            t.join();
        }
        out.println("the test's line");
        assertEquals(List.of("from before", "a line of count-1", "count-1's child"), Files.readAllLines(a));
        assertEquals(List.of("a line of split-2"), Files.readAllLines(b));
        assertEquals("the host's line" + System.lineSeparator() + "the test's line" + System.lineSeparator(),
                process.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLogInADirectoryNotYetThereIsCreated() throws Exception {
        PrintStream out = ExecutorLogs.routing(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        Path log = dir.resolve("new/logs/spout-3.log");
        onThread(log, () -> out.println("first"));
        assertEquals(List.of("first"), Files.readAllLines(log));
    }
}

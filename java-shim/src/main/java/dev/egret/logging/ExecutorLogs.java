package dev.egret.logging;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Per-executor logs in a JVM that runs several executors (the JNI bridge): {@code System.out}
 * and {@code System.err} become streams that write to the calling thread's log. A thread is
 * given its log by {@link #routeCurrentThread}; threads it starts inherit it (an executor's
 * timers, a user's own threads), so an executor writes to {@code logs/<instance>.log} as its
 * own instance JVM would with the socket bridge. A thread without a log (the JVM's own, the
 * host's) writes to the process's original stdout or stderr (the stream manager's log).
 *
 * <p>The streams are plain {@code PrintStream}s with autoflush over a routing stream: a
 * {@code println} is formatted and written whole on the calling thread while the stream's lock
 * is held, so lines do not interleave, in any log.
 */
public final class ExecutorLogs {
    private static final InheritableThreadLocal<OutputStream> LOG = new InheritableThreadLocal<>();
    private static boolean installed;

    private ExecutorLogs() {
    }

    /** Replaces {@code System.out} and {@code System.err} with the routing streams (once). */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        System.setOut(routing(System.out));
        System.setErr(routing(System.err));
        installed = true;
    }

    /**
     * From now on the calling thread, and threads it starts, write their {@code System.out} and
     * {@code System.err} to {@code file} (created with its directory, appended to), once
     * {@link #install} has been called.
     */
    public static void routeCurrentThread(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        LOG.set(new FileOutputStream(file.toFile(), true));
    }

    /** A stream writing to the calling thread's log, or to {@code fallback} without one. */
    static PrintStream routing(PrintStream fallback) {
        return new PrintStream(new Routing(fallback), true, StandardCharsets.UTF_8);
    }

    /** Writes to the calling thread's log, or to the process's stream when it has none. */
    private static final class Routing extends OutputStream {
        private final PrintStream fallback;

        Routing(PrintStream fallback) {
            this.fallback = fallback;
        }

        private OutputStream target() {
            OutputStream log = LOG.get();
            return log != null ? log : fallback;
        }

        @Override
        public void write(int b) throws IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target().write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            target().flush();
        }
    }
}

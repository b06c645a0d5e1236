package dev.egret.instance;

import dev.egret.logging.ExecutorLogs;
import dev.egret.runtime.TopologyClassLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executors of a container with the JNI bridge ({@code egret.instance.bridge: jni}): the
 * stream manager's process embeds this JVM, starts the container's executors with
 * {@link #start}, each on its own thread over a {@link JniFrameChannel}, and they run as
 * with the socket bridge ({@link Instance#run}) minus the hello (the channel is made
 * in-process for that executor). Each executor writes its own log, as its instance JVM would
 * ({@link ExecutorLogs}).
 *
 * <p>Failure: an executor whose task fails (user code threw, a task could not start) or
 * whose stream manager connection could not be restored ends as with the socket bridge, its
 * error reported; here its thread starts it again in the same JVM after a backoff (1 s,
 * doubling to 30 s, back to 1 s once a run lasted a minute), as the container restarts an
 * instance JVM: its tasks are opened or prepared anew, as in a new instance JVM. Each run's
 * channel carries how many restarts came before it, which the stream manager publishes as
 * {@code egret.restarts} of the executor (what the container counts for an instance JVM).
 * Anything that ends the JVM (a crash, an {@code OutOfMemoryError}: the JVM is started with
 * {@code -XX:+CrashOnOutOfMemoryError}) ends the stream manager's process with it, and the
 * container restarts that process as any that dies.
 */
public final class JniHost {
    private static final Logger LOG = LoggerFactory.getLogger(JniHost.class);
    private static final long FIRST_BACKOFF_MS = 1_000;
    private static final long MAX_BACKOFF_MS = 30_000;
    private static final long STABLE_RUN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private JniHost() {
    }

    /**
     * Starts executor {@code instanceId} on a new thread and returns (called from Rust). The
     * executor's threads write their {@code System.out}, {@code System.err} and log lines to
     * {@code logFile}, its own log ({@link ExecutorLogs}).
     */
    public static void start(String instanceId, int frameMaxBytes, String logFile) {
        ExecutorLogs.install();
        LocalValues.enableInThisJvm();
        Thread t = new Thread(() -> {
            try {
                ExecutorLogs.routeCurrentThread(Path.of(logFile));
            } catch (IOException | RuntimeException e) {
                LOG.warn("Executor {} cannot write its log {} ({}); it logs to the stream manager's log",
                        instanceId, logFile, e.toString());
            }
            runRestarting(instanceId, frameMaxBytes);
        }, "executor-" + instanceId);
        // The topology's jars (egret.topology.classpath), one loader for all the JVM's executors.
        t.setContextClassLoader(TopologyClassLoader.current());
        t.start();
    }

    private static void runRestarting(String instanceId, int frameMaxBytes) {
        long backoff = FIRST_BACKOFF_MS;
        String name = Thread.currentThread().getName();
        for (int restarts = 0; ; restarts = restarts == Integer.MAX_VALUE ? restarts : restarts + 1) {
            long started = System.nanoTime();
            int before = restarts;
            int code = Instance.run(() -> JniFrameChannel.open(instanceId, frameMaxBytes, before), null,
                    instanceId, Instance.RECONNECT_WINDOW_NANOS);
            Thread.currentThread().setName(name);
            if (System.nanoTime() - started > STABLE_RUN_NANOS) {
                backoff = FIRST_BACKOFF_MS;
            }
            LOG.warn("Executor {} stopped (code {}); restarting it in this JVM in {} ms", instanceId, code, backoff);
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                LOG.info("Executor {} is not restarted: its thread was interrupted", instanceId);
                return;
            }
            backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
    }
}

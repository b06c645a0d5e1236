package dev.egret.multilang;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.metric.api.IMetric;
import org.apache.storm.metric.api.rpc.IShellMetric;
import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.ShellProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What ShellBolt and ShellSpout share: their timeouts, the {@code metrics} command, the
 * shutdown hook that stops a subprocess with its JVM, and the decision to halt the JVM when
 * the subprocess dies.
 *
 * <p>Halting: as in Storm, a dead subprocess takes its worker down (exit code
 * {@link #EXIT_SUBPROCESS_DIED}), after the error was reported and flushed, so that the
 * container restarts the instance with a fresh subprocess. Not in local mode
 * ({@code storm.cluster.mode: local}) nor when the system property
 * {@value #HALT_PROPERTY} is {@code false} (tests): the component then fails every later
 * call instead.
 */
public final class ShellSupport {
    private static final Logger LOG = LoggerFactory.getLogger(ShellSupport.class);

    public static final int EXIT_SUBPROCESS_DIED = 11;
    public static final String HALT_PROPERTY = "egret.multilang.halt.on.death";
    /** Storm's default of {@code topology.subprocess.timeout.secs}. */
    public static final int DEFAULT_SUBPROCESS_TIMEOUT_SECS = 30;

    private ShellSupport() {
    }

    /** {@code topology.subprocess.timeout.secs} in ms (default 30 s); values below 1 s count as 1 s. */
    public static long subprocessTimeoutMillis(Map<String, Object> conf) {
        Object v = conf == null ? null : conf.get(Config.TOPOLOGY_SUBPROCESS_TIMEOUT_SECS);
        double secs;
        if (v instanceof Number) {
            secs = ((Number) v).doubleValue();
        } else if (v != null) {
            try {
                secs = Double.parseDouble(String.valueOf(v).trim());
            } catch (NumberFormatException e) {
                LOG.warn("{} is not a number ({}); using {} s", Config.TOPOLOGY_SUBPROCESS_TIMEOUT_SECS, v,
                        DEFAULT_SUBPROCESS_TIMEOUT_SECS);
                secs = DEFAULT_SUBPROCESS_TIMEOUT_SECS;
            }
        } else {
            secs = DEFAULT_SUBPROCESS_TIMEOUT_SECS;
        }
        return Math.max(1000L, (long) (secs * 1000));
    }

    /** How often the heartbeat timer runs: a third of the timeout, between 100 ms and 1 s. */
    public static long heartbeatPeriodMillis(long timeoutMillis) {
        return Math.max(100L, Math.min(1000L, timeoutMillis / 3));
    }

    public static boolean haltOnDeath(Map<String, Object> conf) {
        if ("false".equalsIgnoreCase(System.getProperty(HALT_PROPERTY))) {
            return false;
        }
        Object mode = conf == null ? null : conf.get(Config.STORM_CLUSTER_MODE);
        return !"local".equals(mode);
    }

    public static int intConf(Map<String, Object> conf, String key, int def) {
        Object v = conf == null ? null : conf.get(key);
        return v == null ? def : ObjectReader.getInt(v, def);
    }

    /**
     * The {@code metrics} command: updates the metric registered under {@code name} through
     * its {@link IShellMetric#updateMetricFromRPC(Object)}.
     *
     * @throws RuntimeException when no such metric is registered, or it is not an IShellMetric
     */
    public static void updateMetric(TopologyContext context, ShellMsg msg) {
        String name = msg.getMetricName();
        if (name == null || name.isEmpty()) {
            throw new RuntimeException("A metrics command from the subprocess has no metric name");
        }
        IMetric metric = context.getRegisteredMetricByName(name);
        if (metric == null) {
            throw new RuntimeException("Could not find metric by name[" + name + "]");
        }
        if (!(metric instanceof IShellMetric shellMetric)) {
            throw new RuntimeException("The metric " + name + " (" + metric.getClass().getName()
                    + ") is not an IShellMetric");
        }
        try {
            shellMetric.updateMetricFromRPC(msg.getMetricParams());
        } catch (RuntimeException e) {
            throw new RuntimeException("The metric " + name + " refused its update: " + e.getMessage(), e);
        }
    }

    /** A hook that stops the subprocess when the JVM exits (a SIGTERM'd instance must not leave it behind). */
    public static Thread addShutdownHook(ShellProcess process, String name) {
        Thread hook = new Thread(process::destroy, "multilang-shutdown-" + name);
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException e) {
            return null; // already shutting down
        }
        return hook;
    }

    public static void removeShutdownHook(Thread hook) {
        if (hook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down: the hook runs anyway.
        }
    }

    /** Exits the JVM from a fresh thread (the caller may hold locks that shutdown hooks need). */
    public static void halt(String why) {
        LOG.error("Halting the worker: {}", why);
        Thread t = new Thread(() -> System.exit(EXIT_SUBPROCESS_DIED), "multilang-halt");
        t.setDaemon(false);
        t.start();
    }
}

package org.apache.storm.utils;

import dev.egret.instance.CodeDir;
import dev.egret.multilang.Commands;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.multilang.BoltMsg;
import org.apache.storm.multilang.ISerializer;
import org.apache.storm.multilang.JsonSerializer;
import org.apache.storm.multilang.NoOutputException;
import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.multilang.SpoutMsg;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One multilang subprocess: started in {@code <code dir>/resources} (the jar's
 * {@code resources/} directory, extracted there when the instance starts), handshaken
 * ({@code conf}, {@code pidDir}, {@code context} out; {@code pid} back), then spoken to
 * through the configured {@link ISerializer}.
 *
 * <p>The subprocess's stderr is drained by a daemon thread from the start (a full stderr
 * pipe would block the subprocess): every line goes to the worker log at WARN, and the last
 * {@link #STDERR_TAIL_LINES} lines are kept for the error reported when the subprocess dies.
 */
public class ShellProcess implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final Logger LOG = LoggerFactory.getLogger(ShellProcess.class);
    public static Logger ShellLogger = LoggerFactory.getLogger("org.apache.storm.utils.ShellLog");

    static final int STDERR_TAIL_LINES = 50;
    private static final int STDERR_LINE_CHARS = 4096;

    public ISerializer serializer;
    public Number pid;
    public String componentName;

    private final String[] command;
    private Map<String, String> env = new HashMap<>();
    private transient Process subprocess;
    private transient Thread stderrDrain;
    private final ArrayDeque<String> stderrTail = new ArrayDeque<>();

    public ShellProcess(String[] command) {
        this.command = command == null ? new String[0] : command.clone();
    }

    public void setEnv(Map<String, String> env) {
        this.env = env == null ? new HashMap<>() : new HashMap<>(env);
    }

    public Number launch(Map<String, Object> conf, TopologyContext context) {
        return launch(conf, context, true);
    }

    /**
     * Starts the subprocess and handshakes.
     *
     * @param changeDirectory run it in {@code <code dir>/resources} (Storm's default) rather
     *                        than in the worker's working directory
     * @throws RuntimeException when it cannot be started or does not answer the handshake
     */
    public Number launch(Map<String, Object> conf, TopologyContext context, boolean changeDirectory) {
        componentName = context == null ? "" : context.getThisComponentId();
        String[] resolved = Commands.resolve(command, env);
        ProcessBuilder builder = new ProcessBuilder(resolved);
        if (!env.isEmpty()) {
            builder.environment().putAll(env);
        }
        File dir = null;
        if (changeDirectory && context != null && context.getCodeDir() != null) {
            CodeDir.ensureExtracted(new File(context.getCodeDir()));
            dir = new File(context.getCodeDir(), CodeDir.RESOURCES);
            if (!dir.isDirectory()) {
                // A jar without resources/: run where the worker runs rather than fail on chdir.
                LOG.warn("The code directory {} has no resources/ directory; starting {} in {}",
                        context.getCodeDir(), Arrays.toString(resolved), context.getCodeDir());
                dir = new File(context.getCodeDir());
            }
            builder.directory(dir);
        }
        if (context != null && context.getPIDDir() != null) {
            File pidDir = new File(context.getPIDDir());
            if (!pidDir.isDirectory() && !pidDir.mkdirs()) {
                LOG.warn("Could not create the pid directory {}", pidDir);
            }
        }
        serializer = newSerializer(conf);
        LOG.info("Starting multilang subprocess {} for {} in {}", Arrays.toString(resolved), componentName,
                dir == null ? System.getProperty("user.dir") : dir);
        try {
            subprocess = builder.start();
        } catch (IOException e) {
            throw new RuntimeException("Error when launching multilang subprocess " + Arrays.toString(resolved)
                    + " in " + (dir == null ? System.getProperty("user.dir") : dir) + ": " + e.getMessage(), e);
        }
        startStderrDrain();
        serializer.initialize(subprocess.getOutputStream(), subprocess.getInputStream());
        try {
            pid = serializer.connect(conf, context);
        } catch (IOException | NoOutputException e) {
            String info = getProcessTerminationInfoString();
            destroy();
            throw new RuntimeException("Error when launching multilang subprocess " + Arrays.toString(resolved)
                    + ": the handshake failed: " + e.getMessage() + info, e);
        }
        LOG.info("Multilang subprocess {} of {} runs with pid {}", Arrays.toString(resolved), componentName, pid);
        return pid;
    }

    private static ISerializer newSerializer(Map<String, Object> conf) {
        Object name = conf == null ? null : conf.get(Config.TOPOLOGY_MULTILANG_SERIALIZER);
        if (name == null || JsonSerializer.class.getName().equals(name)) {
            return new JsonSerializer();
        }
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class<?> cls = Class.forName(String.valueOf(name), true,
                    cl == null ? ShellProcess.class.getClassLoader() : cl);
            return (ISerializer) cls.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new RuntimeException("Could not instantiate the multilang serializer " + name
                    + " (" + Config.TOPOLOGY_MULTILANG_SERIALIZER + ")", e);
        }
    }

    private void startStderrDrain() {
        final Process p = subprocess;
        final String info = "pid:" + p.pid() + ", name:" + componentName;
        stderrDrain = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.length() > STDERR_LINE_CHARS) {
                        line = line.substring(0, STDERR_LINE_CHARS) + "...";
                    }
                    ShellLogger.warn("{} stderr: {}", info, line);
                    synchronized (stderrTail) {
                        if (stderrTail.size() == STDERR_TAIL_LINES) {
                            stderrTail.pollFirst();
                        }
                        stderrTail.addLast(line);
                    }
                }
            } catch (IOException e) {
                // The pipe closes when the subprocess is destroyed: nothing left to drain.
            }
        }, "multilang-stderr-" + componentName);
        stderrDrain.setDaemon(true);
        stderrDrain.start();
    }

    /** Stops the subprocess: closes its stdin, then terminates it, forcibly after a second. */
    public void destroy() {
        Process p = subprocess;
        if (p == null) {
            return;
        }
        try {
            p.getOutputStream().close();
        } catch (IOException e) {
            // Already closed or broken: the process is being stopped anyway.
        }
        p.destroy();
        try {
            if (!p.waitFor(1, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        Thread drain = stderrDrain;
        if (drain != null) {
            try {
                // Lets the last stderr lines reach the tail before anyone reads it.
                drain.join(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The next message from the subprocess.
     *
     * @throws IOException when it ended its output (the message says how the process ended
     *                     and quotes its last stderr lines), or sent something unreadable
     */
    public ShellMsg readShellMsg() throws IOException {
        try {
            return serializer.readShellMsg();
        } catch (NoOutputException e) {
            waitForExit(500);
            throw new IOException(e.getMessage() + getProcessTerminationInfoString(), e);
        }
    }

    private void waitForExit(long millis) {
        Process p = subprocess;
        if (p == null) {
            return;
        }
        try {
            if (p.waitFor(millis, TimeUnit.MILLISECONDS) && stderrDrain != null) {
                stderrDrain.join(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void writeBoltMsg(BoltMsg msg) throws IOException {
        serializer.writeBoltMsg(msg);
    }

    public void writeSpoutMsg(SpoutMsg msg) throws IOException {
        serializer.writeSpoutMsg(msg);
    }

    public void writeTaskIds(List<Integer> taskIds) throws IOException {
        serializer.writeTaskIds(taskIds);
    }

    /** Stderr is logged line by line as it arrives; this logs the lines kept so far in one entry. */
    public void logErrorStream() {
        String errors = getErrorsString();
        if (!errors.isEmpty()) {
            ShellLogger.info("{} recent stderr:\n{}", getProcessInfoString(), errors);
        }
    }

    /** The last lines the subprocess wrote to stderr, oldest first. */
    public String getErrorsString() {
        synchronized (stderrTail) {
            return String.join("\n", stderrTail);
        }
    }

    public Number getPid() {
        return pid;
    }

    public String getComponentName() {
        return componentName;
    }

    /** The exit code, or -1 while the process runs (or never started). */
    public int getExitCode() {
        Process p = subprocess;
        if (p == null || p.isAlive()) {
            return -1;
        }
        return p.exitValue();
    }

    public String getProcessInfoString() {
        return String.format("pid:%s, name:%s", pid, componentName);
    }

    public String getProcessTerminationInfoString() {
        String errors = getErrorsString();
        return String.format(" exitCode:%s, errorString:%s", getExitCode(), errors.isEmpty() ? "" : "\n" + errors);
    }
}

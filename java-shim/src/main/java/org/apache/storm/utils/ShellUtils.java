package org.apache.storm.utils;

import com.codahale.metrics.Meter;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an external command to completion: its stdout goes to {@link #parseExecResult}, its
 * stderr is collected, a non-zero exit raises {@link ExitCodeException}, and a command that
 * outlives {@code timeOutInterval} ms is killed ({@link #isTimedOut()}). Also the home of
 * {@link #getLogHandler}, which picks a multilang component's {@link ShellLogHandler}.
 */
public abstract class ShellUtils {
    public static final Logger LOG = LoggerFactory.getLogger(ShellUtils.class);

    public static final OSType osType = detectOs();
    public static final boolean WINDOWS = osType == OSType.OS_TYPE_WIN;
    public static final boolean SOLARIS = osType == OSType.OS_TYPE_SOLARIS;
    public static final boolean MAC = osType == OSType.OS_TYPE_MAC;
    public static final boolean FREEBSD = osType == OSType.OS_TYPE_FREEBSD;
    public static final boolean LINUX = osType == OSType.OS_TYPE_LINUX;
    public static final boolean OTHER = osType == OSType.OS_TYPE_OTHER;
    /** Commands that failed to run (a non-zero exit or an I/O error). */
    public static final Meter numShellExceptions = new Meter();
    /** What separates the tokens of a command's output. */
    public static final String TOKEN_SEPARATOR_REGEX = WINDOWS ? "[|\n\r]" : "[ \t\n\r\f]";

    /** Milliseconds after which the command is killed; 0 = no limit. */
    protected long timeOutInterval;
    private final long interval;
    private final boolean redirectErrorStream;
    private long lastTime;
    private Map<String, String> environment;
    private File dir;
    private Process process;
    private int exitCode;
    private final AtomicBoolean timedOut = new AtomicBoolean();

    public ShellUtils() {
        this(0L);
    }

    /** @param interval the minimum ms between two runs (a run sooner does nothing) */
    public ShellUtils(long interval) {
        this(interval, false);
    }

    public ShellUtils(long interval, boolean redirectErrorStream) {
        this.interval = interval;
        this.lastTime = interval < 0 ? 0 : -interval;
        this.redirectErrorStream = redirectErrorStream;
    }

    private static OSType detectOs() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("windows")) {
            return OSType.OS_TYPE_WIN;
        } else if (os.contains("sunos") || os.contains("solaris")) {
            return OSType.OS_TYPE_SOLARIS;
        } else if (os.contains("mac")) {
            return OSType.OS_TYPE_MAC;
        } else if (os.contains("freebsd")) {
            return OSType.OS_TYPE_FREEBSD;
        } else if (os.startsWith("linux")) {
            return OSType.OS_TYPE_LINUX;
        }
        return OSType.OS_TYPE_OTHER;
    }

    /** The command that lists the groups of {@code user}. */
    public static String[] getGroupsForUserCommand(final String user) {
        if (WINDOWS) {
            throw new UnsupportedOperationException("Getting user groups is not supported on Windows");
        }
        return new String[]{"bash", "-c", "id -gn " + user + " && id -Gn " + user};
    }

    /**
     * The log handler named by {@code topology.multilang.log.handler}, else
     * {@link DefaultShellLogHandler}.
     *
     * @throws IllegalArgumentException when {@code topoConf} is null, as Storm's
     * @throws RuntimeException when the named class cannot be instantiated
     */
    public static ShellLogHandler getLogHandler(Map<String, Object> topoConf) {
        if (topoConf == null) {
            throw new IllegalArgumentException("Config is required");
        }
        Object name = topoConf.get(Config.TOPOLOGY_MULTILANG_LOG_HANDLER);
        if (name == null) {
            return new DefaultShellLogHandler();
        }
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class<?> cls = Class.forName(String.valueOf(name), true,
                    cl == null ? ShellUtils.class.getClassLoader() : cl);
            return (ShellLogHandler) cls.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new RuntimeException("Could not instantiate the multilang log handler " + name
                    + " (" + Config.TOPOLOGY_MULTILANG_LOG_HANDLER + ")", e);
        }
    }

    public int getExitCode() {
        return exitCode;
    }

    protected void setEnvironment(Map<String, String> env) {
        this.environment = env;
    }

    protected void setWorkingDirectory(File dir) {
        this.dir = dir;
    }

    /** Runs the command unless the last run was less than the interval ago. */
    protected void run() throws IOException {
        long now = System.currentTimeMillis();
        if (lastTime + interval > now) {
            return;
        }
        exitCode = 0;
        runCommand();
    }

    private void runCommand() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(getExecString());
        if (environment != null) {
            builder.environment().putAll(environment);
        }
        if (dir != null) {
            builder.directory(dir);
        }
        builder.redirectErrorStream(redirectErrorStream);
        timedOut.set(false);
        try {
            process = builder.start();
        } catch (IOException e) {
            numShellExceptions.mark();
            throw e;
        }
        final Process p = process;
        final StringBuilder errMsg = new StringBuilder();
        Thread errThread = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(
                    new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    synchronized (errMsg) {
                        // Bounded: a chatty command must not fill the heap with its stderr.
                        if (errMsg.length() < 64 * 1024) {
                            errMsg.append(line).append(System.lineSeparator());
                        }
                    }
                }
            } catch (IOException e) {
                LOG.debug("Reading the stderr of {} ended: {}", Arrays.toString(getExecString()), e.getMessage());
            }
        }, "shell-stderr");
        errThread.setDaemon(true);
        errThread.start();
        Thread killer = null;
        if (timeOutInterval > 0) {
            final long limit = timeOutInterval;
            killer = new Thread(() -> {
                try {
                    if (!p.waitFor(limit, TimeUnit.MILLISECONDS)) {
                        timedOut.set(true);
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "shell-timeout");
            killer.setDaemon(true);
            killer.start();
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            parseExecResult(in);
            // Drain whatever parseExecResult left so the command never blocks on a full pipe.
            while (in.read() != -1) {
                // discard
            }
            exitCode = p.waitFor();
            errThread.join(1000);
            if (exitCode != 0) {
                numShellExceptions.mark();
                String err;
                synchronized (errMsg) {
                    err = errMsg.toString();
                }
                throw new ExitCodeException(exitCode, err);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while running " + Arrays.toString(getExecString()), e);
        } finally {
            if (killer != null) {
                killer.interrupt();
            }
            p.destroy();
            lastTime = System.currentTimeMillis();
        }
    }

    /** The command line to run. */
    protected abstract String[] getExecString();

    /** Consumes the command's stdout. */
    protected abstract void parseExecResult(BufferedReader lines) throws IOException;

    public Process getProcess() {
        return process;
    }

    /** Whether the last run was killed for outliving {@code timeOutInterval}. */
    public boolean isTimedOut() {
        return timedOut.get();
    }

    public enum OSType {
        OS_TYPE_LINUX, OS_TYPE_WIN, OS_TYPE_SOLARIS, OS_TYPE_MAC, OS_TYPE_FREEBSD, OS_TYPE_OTHER
    }

    /** A command that exited with a non-zero code; the message is its stderr. */
    public static class ExitCodeException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int exitCode;

        public ExitCodeException(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }

        public int getExitCode() {
            return exitCode;
        }
    }

    /** Runs a fixed command and keeps its whole stdout. */
    public static class ShellCommandExecutor extends ShellUtils {
        private final String[] command;
        private StringBuffer output;

        public ShellCommandExecutor(String[] execString) {
            this(execString, null);
        }

        public ShellCommandExecutor(String[] execString, File dir) {
            this(execString, dir, null);
        }

        public ShellCommandExecutor(String[] execString, File dir, Map<String, String> env) {
            this(execString, dir, env, 0L);
        }

        /** @param timeout ms after which the command is killed; 0 = no limit */
        public ShellCommandExecutor(String[] execString, File dir, Map<String, String> env, long timeout) {
            this.command = execString.clone();
            if (dir != null) {
                setWorkingDirectory(dir);
            }
            if (env != null) {
                setEnvironment(env);
            }
            this.timeOutInterval = timeout;
        }

        public void execute() throws IOException {
            this.run();
        }

        @Override
        public String[] getExecString() {
            return command;
        }

        @Override
        protected void parseExecResult(BufferedReader lines) throws IOException {
            output = new StringBuffer();
            char[] buf = new char[512];
            int n;
            while ((n = lines.read(buf, 0, buf.length)) > 0) {
                output.append(buf, 0, n);
            }
        }

        public String getOutput() {
            return output == null ? "" : output.toString();
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (String s : getExecString()) {
                if (s.indexOf(' ') >= 0) {
                    sb.append('"').append(s).append('"');
                } else {
                    sb.append(s);
                }
                sb.append(' ');
            }
            return sb.toString();
        }
    }
}

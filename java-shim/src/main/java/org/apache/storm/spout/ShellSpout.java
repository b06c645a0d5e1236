package org.apache.storm.spout;

import dev.egret.multilang.ShellSupport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.generated.ShellComponent;
import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.multilang.SpoutMsg;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.utils.ShellLogHandler;
import org.apache.storm.utils.ShellProcess;
import org.apache.storm.utils.ShellUtils;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A spout whose logic runs in a subprocess speaking Storm's multilang protocol. Each call
 * ({@code nextTuple}, {@code ack}, {@code fail}, {@code activate}, {@code deactivate}) sends
 * one command and handles what the subprocess answers ({@code emit}, {@code log},
 * {@code error}, {@code metrics}) until its {@code sync}, on the executor thread: the spout
 * is synchronous, as in Storm. Emits carry the subprocess's {@code id} as message id; the
 * task ids of an emit are written back unless it is direct or says {@code need_task_ids: false}.
 *
 * <p>A call that gets no message from the subprocess for {@code topology.subprocess.timeout.secs}
 * (default 30) kills it. Death (exit, bad JSON, unknown command, timeout) is reported as in
 * {@link org.apache.storm.task.ShellBolt}: worker log, {@code reportError}, then the worker halts
 * (not in local mode); the call throws.
 */
public class ShellSpout implements ISpout {
    private static final long serialVersionUID = 5982357019665454L;

    public static final Logger LOG = LoggerFactory.getLogger(ShellSpout.class);

    private final String[] command;
    private Map<String, String> env = new HashMap<>();
    private boolean changeDirectory = true;

    private transient SpoutOutputCollector collector;
    private transient TopologyContext context;
    private transient ShellProcess process;
    private transient ShellLogHandler logHandler;
    private transient SpoutMsg spoutMsg;
    private transient long timeoutMillis;
    private transient boolean halt;
    private transient volatile boolean waitingOnSubprocess;
    private transient volatile long lastHeartbeatMillis;
    private transient volatile boolean timedOut;
    private transient volatile boolean running;
    private transient RuntimeException exception;
    private transient ScheduledExecutorService heartbeatTimer;
    private transient Thread shutdownHook;

    public ShellSpout(ShellComponent component) {
        this(component.get_execution_command(), component.get_script());
    }

    public ShellSpout(String... command) {
        this.command = command == null ? new String[0] : command.clone();
    }

    /** Environment variables for the subprocess, added to the worker's. */
    public ShellSpout setEnv(Map<String, String> env) {
        this.env = env == null ? new HashMap<>() : new HashMap<>(env);
        return this;
    }

    public boolean shouldChangeChildCWD() {
        return changeDirectory;
    }

    /** Whether the subprocess runs in {@code <code dir>/resources} (default) or in the worker's directory. */
    public void changeChildCWD(boolean changeDirectory) {
        this.changeDirectory = changeDirectory;
    }

    @Override
    public void open(Map<String, Object> topoConf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.context = context;
        this.timeoutMillis = ShellSupport.subprocessTimeoutMillis(topoConf);
        this.halt = ShellSupport.haltOnDeath(topoConf);
        this.exception = null;
        this.spoutMsg = new SpoutMsg();
        process = new ShellProcess(command);
        process.setEnv(env);
        Number pid = process.launch(topoConf, context, changeDirectory);
        shutdownHook = ShellSupport.addShutdownHook(process, taskName());
        logHandler = ShellUtils.getLogHandler(topoConf);
        logHandler.setUpContext(ShellSpout.class, process, context);
        LOG.info("ShellSpout {} started subprocess {} with pid {} (timeout {} ms)", taskName(),
                Arrays.toString(command), pid, timeoutMillis);
        running = true;
        long period = ShellSupport.heartbeatPeriodMillis(timeoutMillis);
        heartbeatTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ShellSpout-heartbeat-" + taskName());
            t.setDaemon(true);
            return t;
        });
        heartbeatTimer.scheduleAtFixedRate(this::checkHeartbeat, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        running = false;
        if (heartbeatTimer != null) {
            heartbeatTimer.shutdown();
        }
        if (process != null) {
            process.destroy();
        }
        ShellSupport.removeShutdownHook(shutdownHook);
        shutdownHook = null;
    }

    @Override
    public void nextTuple() {
        sendCommand("next", null);
    }

    @Override
    public void ack(Object msgId) {
        sendCommand("ack", msgId);
    }

    @Override
    public void fail(Object msgId) {
        sendCommand("fail", msgId);
    }

    @Override
    public void activate() {
        sendCommand("activate", null);
    }

    @Override
    public void deactivate() {
        sendCommand("deactivate", null);
    }

    private void sendCommand(String command, Object id) {
        if (exception != null) {
            throw new RuntimeException("The multilang subprocess of " + taskName() + " died", exception);
        }
        spoutMsg.setCommand(command);
        spoutMsg.setId(id);
        lastHeartbeatMillis = System.currentTimeMillis();
        waitingOnSubprocess = true;
        try {
            process.writeSpoutMsg(spoutMsg);
            while (true) {
                ShellMsg msg = process.readShellMsg();
                lastHeartbeatMillis = System.currentTimeMillis();
                if (handle(msg)) {
                    return;
                }
            }
        } catch (Throwable t) {
            Throwable cause = timedOut
                    ? new RuntimeException("subprocess heartbeat timeout: no answer to \"" + command + "\" within "
                    + timeoutMillis + " ms (" + Config.TOPOLOGY_SUBPROCESS_TIMEOUT_SECS + ")", t)
                    : t;
            throw die(cause);
        } finally {
            waitingOnSubprocess = false;
        }
    }

    /** Handles one message; true on {@code sync}, which ends the current command. */
    private boolean handle(ShellMsg msg) throws IOException {
        String command = msg.getCommand();
        switch (command) {
            case "sync":
                return true;
            case "log":
                logHandler.log(msg);
                return false;
            case "error":
                collector.reportError(new Exception("Shell Process Exception: " + msg.getMsg()));
                return false;
            case "emit":
                emit(msg);
                return false;
            case "metrics":
                ShellSupport.updateMetric(context, msg);
                return false;
            default:
                throw new IllegalArgumentException("The multilang subprocess sent the unknown command \""
                        + command + "\": " + msg);
        }
    }

    private void emit(ShellMsg msg) throws IOException {
        List<Object> values = msg.getTuple();
        if (values == null) {
            throw new IllegalArgumentException("An emit from the multilang subprocess has no \"tuple\": " + msg);
        }
        String stream = msg.getStream() == null ? Utils.DEFAULT_STREAM_ID : msg.getStream();
        Object messageId = msg.getId();
        if (msg.getTask() == 0) {
            List<Integer> tasks = collector.emit(stream, values, messageId);
            if (msg.areTaskIdsNeeded()) {
                process.writeTaskIds(tasks == null ? new ArrayList<>() : tasks);
            }
        } else {
            collector.emitDirect((int) msg.getTask(), stream, values, messageId);
        }
    }

    private void checkHeartbeat() {
        if (!running || !waitingOnSubprocess) {
            return;
        }
        long silent = System.currentTimeMillis() - lastHeartbeatMillis;
        if (silent > timeoutMillis) {
            LOG.error("The multilang subprocess of ShellSpout {} sent nothing for {} ms (limit {} ms); killing it",
                    taskName(), silent, timeoutMillis);
            timedOut = true;
            running = false;
            // Ends the executor's blocked read; it reports the death.
            process.destroy();
        }
    }

    private RuntimeException die(Throwable cause) {
        boolean wasRunning = exception == null;
        running = false;
        if (heartbeatTimer != null) {
            heartbeatTimer.shutdown();
        }
        process.destroy();
        String info = process.getProcessInfoString() + process.getProcessTerminationInfoString();
        exception = new RuntimeException(info, cause);
        LOG.error("Halting process: ShellSpout died. Command: {}, ProcessInfo {}", Arrays.toString(command),
                info, cause);
        try {
            collector.reportError(exception);
            collector.flush();
        } catch (RuntimeException e) {
            LOG.warn("Could not report the death of the multilang subprocess of {}", taskName(), e);
        }
        if (halt && wasRunning) {
            ShellSupport.halt("the multilang subprocess of ShellSpout " + taskName() + " died");
        }
        return exception;
    }

    private String taskName() {
        return context == null ? "?" : context.getThisComponentId() + ":" + context.getThisTaskId();
    }
}

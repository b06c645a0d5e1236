package org.apache.storm.task;

import dev.egret.multilang.ShellSupport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.Config;
import org.apache.storm.generated.ShellComponent;
import org.apache.storm.multilang.BoltMsg;
import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.utils.ShellBoltMessageQueue;
import org.apache.storm.utils.ShellLogHandler;
import org.apache.storm.utils.ShellProcess;
import org.apache.storm.utils.ShellUtils;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bolt whose logic runs in a subprocess speaking Storm's multilang protocol (JSON messages
 * each followed by a line {@code end}), e.g. {@code new ShellBolt("python3", "splitsentence.py")}.
 * The subprocess starts in {@code <code dir>/resources} (the jar's {@code resources/}).
 *
 * <p>Threads: {@link #execute} only queues the tuple (blocking while
 * {@code topology.shellbolt.max.pending} tuples wait, default 100); a writer thread sends
 * tuples, task-id replies and heartbeats to the subprocess; a reader thread handles its
 * commands ({@code emit}, {@code ack}, {@code fail}, {@code log}, {@code error},
 * {@code metrics}, {@code sync}) through the collector, which accepts calls from any thread.
 * A heartbeat tuple (stream {@code __heartbeat}, task -1) is sent when none is outstanding;
 * a subprocess that answers no {@code sync} within {@code topology.subprocess.timeout.secs}
 * (default 30) is killed.
 *
 * <p>Death (the subprocess exits, sends bad JSON or an unknown command, or misses its
 * heartbeat): the error, with the exit code and the last stderr lines, goes to the worker
 * log and to {@code reportError}; then, as Storm, the worker halts so that it restarts (see
 * {@link ShellSupport}); where it does not halt, every later {@code execute} throws.
 */
public class ShellBolt implements IBolt {
    private static final long serialVersionUID = -339575186639193348L;

    public static final String HEARTBEAT_STREAM_ID = "__heartbeat";
    public static final Logger LOG = LoggerFactory.getLogger(ShellBolt.class);

    private static final int DEFAULT_MAX_PENDING = 100;

    private final String[] command;
    private Map<String, String> env = new HashMap<>();
    private boolean changeDirectory = true;

    private transient ShellProcess process;
    private transient OutputCollector collector;
    private transient TopologyContext context;
    private transient ShellLogHandler logHandler;
    private transient Map<String, Tuple> inputs;
    private transient ShellBoltMessageQueue pending;
    private transient AtomicLong nextId;
    private transient volatile boolean running;
    private transient volatile RuntimeException exception;
    private transient AtomicBoolean sendHeartbeat;
    private transient volatile boolean heartbeatOutstanding;
    private transient volatile long lastHeartbeatMillis;
    private transient long timeoutMillis;
    private transient boolean halt;
    private transient Thread reader;
    private transient Thread writer;
    private transient ScheduledExecutorService heartbeatTimer;
    private transient Thread shutdownHook;

    public ShellBolt(ShellComponent component) {
        this(component.get_execution_command(), component.get_script());
    }

    public ShellBolt(String... command) {
        this.command = command == null ? new String[0] : command.clone();
    }

    /** Environment variables for the subprocess, added to the worker's. */
    public ShellBolt setEnv(Map<String, String> env) {
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
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.context = context;
        int maxPending = ShellSupport.intConf(topoConf, Config.TOPOLOGY_SHELLBOLT_MAX_PENDING, DEFAULT_MAX_PENDING);
        if (maxPending <= 0) {
            LOG.warn("{} must be positive, got {}; using {}", Config.TOPOLOGY_SHELLBOLT_MAX_PENDING, maxPending,
                    DEFAULT_MAX_PENDING);
            maxPending = DEFAULT_MAX_PENDING;
        }
        this.pending = new ShellBoltMessageQueue(maxPending);
        this.inputs = new ConcurrentHashMap<>();
        this.nextId = new AtomicLong();
        this.sendHeartbeat = new AtomicBoolean();
        this.timeoutMillis = ShellSupport.subprocessTimeoutMillis(topoConf);
        this.halt = ShellSupport.haltOnDeath(topoConf);
        this.exception = null;

        process = new ShellProcess(command);
        process.setEnv(env);
        Number pid = process.launch(topoConf, context, changeDirectory);
        shutdownHook = ShellSupport.addShutdownHook(process, taskName());
        logHandler = ShellUtils.getLogHandler(topoConf);
        logHandler.setUpContext(ShellBolt.class, process, context);
        LOG.info("ShellBolt {} started subprocess {} with pid {} (max pending {}, heartbeat timeout {} ms)",
                taskName(), Arrays.toString(command), pid, maxPending, timeoutMillis);

        running = true;
        lastHeartbeatMillis = System.currentTimeMillis();
        reader = new Thread(this::readLoop, "ShellBolt-reader-" + taskName());
        reader.setDaemon(true);
        writer = new Thread(this::writeLoop, "ShellBolt-writer-" + taskName());
        writer.setDaemon(true);
        reader.start();
        writer.start();
        long period = ShellSupport.heartbeatPeriodMillis(timeoutMillis);
        heartbeatTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ShellBolt-heartbeat-" + taskName());
            t.setDaemon(true);
            return t;
        });
        heartbeatTimer.scheduleAtFixedRate(this::checkHeartbeat, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void execute(Tuple input) {
        RuntimeException dead = exception;
        if (dead != null) {
            throw new RuntimeException("The multilang subprocess of " + taskName() + " died", dead);
        }
        String id = Long.toString(nextId.incrementAndGet());
        inputs.put(id, input);
        BoltMsg msg = new BoltMsg();
        msg.setId(id);
        msg.setComp(input.getSourceComponent());
        msg.setStream(input.getSourceStreamId());
        msg.setTask(input.getSourceTask());
        msg.setTuple(input.getValues());
        try {
            pending.putBoltMsg(msg);
        } catch (InterruptedException e) {
            inputs.remove(id);
            Thread.currentThread().interrupt();
            throw new RuntimeException("Interrupted while queueing a tuple for the multilang subprocess of "
                    + taskName(), e);
        }
    }

    @Override
    public void cleanup() {
        running = false;
        stopTimer();
        if (process != null) {
            process.destroy();
        }
        interrupt(writer);
        interrupt(reader);
        ShellSupport.removeShutdownHook(shutdownHook);
        shutdownHook = null;
        if (inputs != null) {
            inputs.clear();
        }
    }

    private void readLoop() {
        while (running) {
            ShellMsg msg;
            try {
                msg = process.readShellMsg();
            } catch (IOException e) {
                if (running) {
                    die(e);
                }
                return;
            }
            try {
                handle(msg);
            } catch (Throwable t) {
                die(t);
                return;
            }
        }
    }

    private void handle(ShellMsg msg) throws InterruptedException {
        String command = msg.getCommand();
        switch (command) {
            case "ack":
                collector.ack(takeInput(msg, "Acked"));
                break;
            case "fail":
                collector.fail(takeInput(msg, "Failed"));
                break;
            case "error":
                collector.reportError(new Exception("Shell Process Exception: " + msg.getMsg()));
                break;
            case "log":
                logHandler.log(msg);
                break;
            case "emit":
                emit(msg);
                break;
            case "metrics":
                ShellSupport.updateMetric(context, msg);
                break;
            case "sync":
                lastHeartbeatMillis = System.currentTimeMillis();
                heartbeatOutstanding = false;
                break;
            default:
                throw new IllegalArgumentException("The multilang subprocess sent the unknown command \""
                        + command + "\": " + msg);
        }
    }

    private Tuple takeInput(ShellMsg msg, String verb) {
        Object id = msg.getId();
        Tuple t = id == null ? null : inputs.remove(String.valueOf(id));
        if (t == null) {
            throw new IllegalStateException(verb + " a non-existent or already acked/failed id: " + id);
        }
        return t;
    }

    private void emit(ShellMsg msg) {
        List<Tuple> anchors = new ArrayList<>();
        if (msg.getAnchors() != null) {
            for (String a : msg.getAnchors()) {
                Tuple t = inputs.get(a);
                if (t == null) {
                    throw new IllegalStateException("Anchored onto " + a + " after ack/fail");
                }
                anchors.add(t);
            }
        }
        List<Object> values = msg.getTuple();
        if (values == null) {
            throw new IllegalArgumentException("An emit from the multilang subprocess has no \"tuple\": " + msg);
        }
        String stream = msg.getStream() == null ? Utils.DEFAULT_STREAM_ID : msg.getStream();
        if (msg.getTask() == 0) {
            List<Integer> tasks = collector.emit(stream, anchors, values);
            if (msg.areTaskIdsNeeded()) {
                pending.putTaskIds(tasks == null ? new ArrayList<>() : tasks);
            }
        } else {
            collector.emitDirect((int) msg.getTask(), stream, anchors, values);
        }
    }

    private void writeLoop() {
        long period = ShellSupport.heartbeatPeriodMillis(timeoutMillis);
        try {
            while (running) {
                Object next = pending.poll(period, TimeUnit.MILLISECONDS);
                if (next instanceof BoltMsg) {
                    process.writeBoltMsg((BoltMsg) next);
                } else if (next instanceof List) {
                    @SuppressWarnings("unchecked")
                    List<Integer> ids = (List<Integer>) next;
                    process.writeTaskIds(ids);
                }
                if (sendHeartbeat.getAndSet(false)) {
                    process.writeBoltMsg(heartbeatMsg());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (running) {
                die(e);
            }
        }
    }

    private static BoltMsg heartbeatMsg() {
        BoltMsg m = new BoltMsg();
        m.setId("-1");
        m.setComp("");
        m.setStream(HEARTBEAT_STREAM_ID);
        m.setTask(-1);
        m.setTuple(new ArrayList<>());
        return m;
    }

    private void checkHeartbeat() {
        if (!running) {
            return;
        }
        long silent = System.currentTimeMillis() - lastHeartbeatMillis;
        if (silent > timeoutMillis) {
            die(new RuntimeException("subprocess heartbeat timeout: no sync for " + silent + " ms (limit "
                    + timeoutMillis + " ms, " + Config.TOPOLOGY_SUBPROCESS_TIMEOUT_SECS + ")"));
            return;
        }
        if (!heartbeatOutstanding) {
            heartbeatOutstanding = true;
            sendHeartbeat.set(true);
        }
    }

    private void die(Throwable cause) {
        synchronized (this) {
            if (exception != null) {
                return;
            }
            boolean wasRunning = running;
            running = false;
            stopTimer();
            // Kill first: the exit code and the last stderr lines then belong in the report.
            if (process != null) {
                process.destroy();
            }
            String info = process == null ? "" : process.getProcessInfoString() + process.getProcessTerminationInfoString();
            exception = new RuntimeException(info, cause);
            LOG.error("Halting process: ShellBolt died. Command: {}, ProcessInfo {}", Arrays.toString(command),
                    info, cause);
            try {
                collector.reportError(exception);
                collector.flush();
            } catch (RuntimeException e) {
                LOG.warn("Could not report the death of the multilang subprocess of {}", taskName(), e);
            }
            drainPending();
            interrupt(writer);
            if (halt && wasRunning) {
                ShellSupport.halt("the multilang subprocess of ShellBolt " + taskName() + " died");
            }
        }
    }

    /** Frees an executor blocked on a full queue: its next execute then fails. */
    private void drainPending() {
        try {
            while (pending.poll(0, TimeUnit.MILLISECONDS) != null) {
                // discard: nobody will write it
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopTimer() {
        ScheduledExecutorService t = heartbeatTimer;
        if (t != null) {
            // Not shutdownNow: die() may run on the timer's own thread.
            t.shutdown();
        }
    }

    private static void interrupt(Thread t) {
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
        }
    }

    private String taskName() {
        return context == null ? "?" : context.getThisComponentId() + ":" + context.getThisTaskId();
    }
}

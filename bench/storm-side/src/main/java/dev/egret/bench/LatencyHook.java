package dev.egret.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.task.TopologyContext;

/**
 * The bench's measuring hook, registered through Storm's
 * {@code topology.auto.task.hooks} on every system compared, so both are
 * measured by the same code from inside the topology.
 *
 * <p>Per user task it counts spout acks and fails, bolt executes, and keeps a
 * histogram of complete latencies (ms, as {@link SpoutAckInfo#completeLatencyMs};
 * acks without a latency, i.e. not sampled, are counted but not recorded). A
 * bolt with no user downstream is a sink: its executes are the throughput when
 * acking is off.
 *
 * <p>Every second, and at cleanup, each task's cumulative figures replace the
 * file {@code <egret.bench.output.dir>/<component>-<task>.txt} (written to a
 * temporary name, then renamed: a reader never sees half a file). Without that
 * config key the hook does nothing. System components ({@code __acker}, ...)
 * are not measured.
 *
 * <p>File format (one {@code key value} per line; the contract with
 * {@code egret-bench}'s {@code cumulative} module): {@code version 1},
 * {@code component}, {@code task}, {@code spout}, {@code sink}, {@code time_ms}
 * (wall clock at writing), {@code acked}, {@code failed}, {@code executed},
 * {@code latency_count}, {@code hist} (sparse {@code index:count} pairs of
 * {@link LogLinearHistogram}), {@code hist_us} (only for a spout that measures its own complete
 * latencies in µs: {@link #recordCompleteMicros}), {@code first_ms} (wall clock of the first ack or execute,
 * 0 before it).
 */
public class LatencyHook extends BaseTaskHook {
    /** The topology config key naming the output directory. */
    public static final String OUTPUT_DIR = "egret.bench.output.dir";

    private static final ConcurrentLinkedQueue<LatencyHook> LIVE = new ConcurrentLinkedQueue<>();
    /** Complete latencies in µs that spouts measure themselves, by task (see {@link #recordCompleteMicros}). */
    private static final ConcurrentHashMap<Integer, LogLinearHistogram> COMPLETE_MICROS = new ConcurrentHashMap<>();
    private static ScheduledExecutorService flusher;

    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong executed = new AtomicLong();
    private final AtomicLong latencyCount = new AtomicLong();
    private final AtomicLong firstMs = new AtomicLong();
    private final LogLinearHistogram latencies = new LogLinearHistogram();
    private volatile Path file;
    private String component;
    private int task;
    private boolean spout;
    private boolean sink;

    /** Storm's contract: a public no-arg constructor. */
    public LatencyHook() {}

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context) {
        Object dir = conf.get(OUTPUT_DIR);
        component = context.getThisComponentId();
        task = context.getThisTaskId();
        if (dir == null || component == null || component.startsWith("__")) {
            return;
        }
        spout = context.getRawTopology() != null
                && context.getRawTopology().get_spouts() != null
                && context.getRawTopology().get_spouts().containsKey(component);
        sink = !spout && isSink(context);
        try {
            Path out = Paths.get(dir.toString());
            Files.createDirectories(out);
            file = out.resolve(sanitize(component) + "-" + task + ".txt");
        } catch (IOException | RuntimeException e) {
            System.err.println("egret bench hook: cannot use " + OUTPUT_DIR + "=" + dir + ": " + e);
            return;
        }
        register(this);
        write();
    }

    private static boolean isSink(TopologyContext context) {
        Map<String, ? extends Map<String, ?>> targets = context.getThisTargets();
        if (targets == null) {
            return true;
        }
        for (Map<String, ?> byComponent : targets.values()) {
            for (String target : byComponent.keySet()) {
                if (!target.startsWith("__")) {
                    return false;
                }
            }
        }
        return true;
    }

    static String sanitize(String component) {
        return component.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static synchronized void register(LatencyHook hook) {
        LIVE.add(hook);
        if (flusher == null) {
            flusher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "egret-bench-hook-flusher");
                t.setDaemon(true);
                return t;
            });
            flusher.scheduleAtFixedRate(() -> LIVE.forEach(LatencyHook::write), 1, 1, TimeUnit.SECONDS);
        }
    }

    @Override
    public void spoutAck(SpoutAckInfo info) {
        first();
        acked.incrementAndGet();
        Long latency = info.completeLatencyMs;
        if (latency != null) {
            latencyCount.incrementAndGet();
            latencies.record(latency);
        }
    }

    /**
     * A complete latency in µs that spout task {@code task} measured itself (the rate workload's
     * spout, from when the tuple was due): written as {@code hist_us} into that task's file, beside
     * Storm's millisecond {@code hist}, so that both systems are measured by the same code.
     */
    public static void recordCompleteMicros(int task, long micros) {
        COMPLETE_MICROS.computeIfAbsent(task, t -> new LogLinearHistogram()).record(micros);
    }

    @Override
    public void spoutFail(SpoutFailInfo info) {
        failed.incrementAndGet();
    }

    @Override
    public void boltExecute(BoltExecuteInfo info) {
        first();
        executed.incrementAndGet();
    }

    /** Notes the wall clock of the first counted tuple (the bench's time to the first tuple). */
    private void first() {
        if (firstMs.get() == 0) {
            firstMs.compareAndSet(0, System.currentTimeMillis());
        }
    }

    @Override
    public void cleanup() {
        if (file != null) {
            LIVE.remove(this);
            write();
        }
    }

    /** The file's text now. */
    String render() {
        return "version 1\n"
                + "component " + component + "\n"
                + "task " + task + "\n"
                + "spout " + spout + "\n"
                + "sink " + sink + "\n"
                + "time_ms " + System.currentTimeMillis() + "\n"
                + "acked " + acked.get() + "\n"
                + "failed " + failed.get() + "\n"
                + "executed " + executed.get() + "\n"
                + "latency_count " + latencyCount.get() + "\n"
                + "hist " + latencies.toSparseString() + "\n"
                + microsLine()
                + "first_ms " + firstMs.get() + "\n";
    }

    /** The {@code hist_us} line when this task's spout measured latencies itself, else nothing. */
    private String microsLine() {
        LogLinearHistogram micros = COMPLETE_MICROS.get(task);
        return micros == null ? "" : "hist_us " + micros.toSparseString() + "\n";
    }

    // Serialized per hook: the flusher and cleanup may both write.
    synchronized void write() {
        Path target = file;
        if (target == null) {
            return;
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.write(tmp, render().getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("egret bench hook: cannot write " + target + ": " + e);
        }
    }
}

package dev.egret.examples;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * A spout as fast as it can go feeding a bolt that sleeps per tuple, for the backpressure tests:
 * {@code spout -> slow (shuffle)}. Acking is on and {@code topology.max.spout.pending} is left
 * unset, so only backpressure can hold the spout back.
 *
 * <p>The spout owns keys {@code k} with {@code k % spoutTasks == taskIndex} and emits, round robin
 * over its keys, {@code (key, seq, payload)} with message id {@code "key:seq"}, seqs counting up
 * from 0 per key with no end. The payload ({@code payload} bytes) gives the tuples a size, so that
 * bytes queued in a stream manager are visible in its memory. A failed id is replayed before new
 * ones. Files per spout task index {@code i}:
 *
 * <ul>
 *   <li>{@code spout-acked-<i>.log}: one acked id per line;
 *   <li>{@code spout-fails-<i>.log}: one failed id per line;
 *   <li>{@code spout-unexpected-<i>.log}: an ack or fail for an id that was not pending;
 *   <li>{@code spout-progress-<i>.txt}: every 200 ms, {@code "<epoch ms> <emitted> <acked>
 *       <failed> <pending>"} (emitted counts first emits only, not replays; pending counts the trees in
 *       flight plus the failed ids waiting for their replay);
 *   <li>{@code spout-next-<i>.txt}: rewritten atomically with each progress line, {@code "<key>
 *       <next seq>"} per key: every id {@code key:seq} with {@code seq < next} was emitted.
 * </ul>
 *
 * <p>The slow bolt sleeps {@code sleepms} per tuple until it "recovers": when the file {@code
 * <out>/recover} exists (checked at most every 100 ms), or {@code recoverafter} seconds after its
 * prepare when that is above 0. It records {@code "key seq"} per tuple in {@code slow-<taskId>.txt}
 * (after the sleep, before the ack) and every 200 ms {@code "<epoch ms> <executed> <recovered 0|1>"}
 * in {@code slow-progress-<taskId>.txt}.
 *
 * <p>Every line is written with one {@code write} on a file kept open in append mode, so a reader
 * never sees a torn line except a last one still being written, and nothing waits in a buffer.
 *
 * <p>Arguments: {@code <topology name> <output dir> [key=value ..]} with keys: {@code keys} (16),
 * {@code payload} (bytes per tuple; 1024), {@code sleepms} (10), {@code slow} (slow bolt
 * parallelism; 2), {@code spouts} (1), {@code workers} (2), {@code timeout}
 * (topology.message.timeout.secs; 30), {@code recoverafter} (seconds; 0 = only the marker file),
 * {@code errors} (the slow bolt reports an error, {@link #ERROR_TEXT} and the tuple's key and seq,
 * through {@code OutputCollector.reportError} for each of its first {@code errors} tuples; 0).
 */
public final class SlowBoltTopology {
    public static final String SPOUT = "spout";
    public static final String SLOW = "slow";
    /** Created in the output directory to make the slow bolt stop sleeping. */
    public static final String RECOVER_MARKER = "recover";
    /** The start of the message of each error the slow bolt reports ({@code errors=N}). */
    public static final String ERROR_TEXT = "slow bolt is falling behind at tuple ";

    private static final long PROGRESS_PERIOD_MS = 200;

    private SlowBoltTopology() {}

    /** An append-mode file written one whole line per {@code write} call. */
    static final class LineFile {
        private final Path path;
        private final FileOutputStream out;

        LineFile(String dir, String name) {
            this.path = Recorder.file(dir, name);
            try {
                Files.createDirectories(path.getParent());
                this.out = new FileOutputStream(path.toFile(), true);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open " + path, e);
            }
        }

        synchronized void line(String line) {
            try {
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + path, e);
            }
        }

        synchronized void close() {
            try {
                out.close();
            } catch (IOException e) {
                // Closing after the last write: nothing more can be lost.
            }
        }
    }

    /** Writes {@code text} to {@code <dir>/<name>} atomically (temp file + rename). */
    static void writeAtomically(String dir, String name, String text) {
        Path path = Recorder.file(dir, name);
        Path tmp = Recorder.file(dir, "." + name + ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }

    static ScheduledExecutorService ticker(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Emits (key, seq, payload) as fast as it is allowed to; see the class docs. */
    public static final class FastSpout extends BaseRichSpout {
        private final String outDir;
        private final int keys;
        private final int payloadBytes;

        private transient SpoutOutputCollector collector;
        private transient int[] ownKeys;
        private transient int cursor;
        /** Next seq per own key (index into ownKeys); read by the progress thread. */
        private transient AtomicLongArray next;
        private transient byte[] payload;
        private transient ArrayDeque<String> replay;
        private transient Set<String> pending;
        private transient AtomicLong emitted;
        private transient AtomicLong acked;
        private transient AtomicLong failed;
        private transient AtomicLong pendingCount;
        private transient LineFile ackedLog;
        private transient LineFile failsLog;
        private transient LineFile unexpectedLog;
        private transient LineFile progressLog;
        private transient ScheduledExecutorService progress;

        public FastSpout(String outDir, int keys, int payloadBytes) {
            this.outDir = outDir;
            this.keys = keys;
            this.payloadBytes = payloadBytes;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            int taskIndex = context.getThisTaskIndex();
            int tasks = context.getComponentTasks(context.getThisComponentId()).size();
            this.ownKeys = java.util.stream.IntStream.range(0, keys)
                    .filter(k -> k % tasks == taskIndex)
                    .toArray();
            this.next = new AtomicLongArray(ownKeys.length);
            this.payload = new byte[payloadBytes];
            Arrays.fill(payload, (byte) 'x');
            this.replay = new ArrayDeque<>();
            this.pending = new HashSet<>();
            this.emitted = new AtomicLong();
            this.acked = new AtomicLong();
            this.failed = new AtomicLong();
            this.pendingCount = new AtomicLong();
            this.ackedLog = new LineFile(outDir, "spout-acked-" + taskIndex + ".log");
            this.failsLog = new LineFile(outDir, "spout-fails-" + taskIndex + ".log");
            this.unexpectedLog = new LineFile(outDir, "spout-unexpected-" + taskIndex + ".log");
            this.progressLog = new LineFile(outDir, "spout-progress-" + taskIndex + ".txt");
            String nextFile = "spout-next-" + taskIndex + ".txt";
            this.progress = ticker("spout-progress-" + taskIndex);
            progress.scheduleAtFixedRate(
                    () -> {
                        // Next seqs first: a seq counted in the progress line is then in the file.
                        StringBuilder sb = new StringBuilder();
                        for (int i = 0; i < ownKeys.length; i++) {
                            sb.append(ownKeys[i]).append(' ').append(next.get(i)).append('\n');
                        }
                        writeAtomically(outDir, nextFile, sb.toString());
                        progressLog.line(System.currentTimeMillis() + " " + emitted.get() + " " + acked.get()
                                + " " + failed.get() + " " + pendingCount.get());
                    },
                    0,
                    PROGRESS_PERIOD_MS,
                    TimeUnit.MILLISECONDS);
        }

        @Override
        public void nextTuple() {
            if (ownKeys.length == 0) {
                Recorder.idle();
                return;
            }
            String id = replay.poll();
            int key;
            long seq;
            if (id == null) {
                int i = cursor;
                cursor = (cursor + 1) % ownKeys.length;
                key = ownKeys[i];
                seq = next.get(i);
                id = key + ":" + seq;
                // Counted once the emit is decided, before the tuple leaves: the next-seq file
                // then never misses an id whose ack could be logged.
                next.set(i, seq + 1);
                emitted.incrementAndGet();
            } else {
                int colon = id.indexOf(':');
                key = Integer.parseInt(id.substring(0, colon));
                seq = Long.parseLong(id.substring(colon + 1));
            }
            pending.add(id);
            pendingCount.set(pending.size() + replay.size());
            collector.emit(new Values(key, seq, payload), id);
        }

        @Override
        public void ack(Object msgId) {
            String id = String.valueOf(msgId);
            if (!pending.remove(id)) {
                unexpectedLog.line("ack " + id);
            }
            pendingCount.set(pending.size() + replay.size());
            ackedLog.line(id);
            acked.incrementAndGet();
        }

        @Override
        public void fail(Object msgId) {
            String id = String.valueOf(msgId);
            if (!pending.remove(id)) {
                unexpectedLog.line("fail " + id);
            }
            failsLog.line(id);
            failed.incrementAndGet();
            pendingCount.set(pending.size() + replay.size());
            replay.add(id);
        }

        @Override
        public void close() {
            if (progress != null) {
                progress.shutdownNow();
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("key", "seq", "payload"));
        }
    }

    /** Sleeps per tuple until it recovers, records what it saw, acks; see the class docs. */
    public static final class SlowBolt extends BaseRichBolt {
        private final String outDir;
        private final int sleepMs;
        private final int recoverAfterSecs;
        private final int errors;

        private transient OutputCollector collector;
        private transient LineFile seen;
        private transient LineFile progressLog;
        private transient AtomicLong executed;
        private transient volatile boolean recovered;
        private transient long preparedNanos;
        private transient long nextMarkerCheckNanos;
        private transient ScheduledExecutorService progress;

        public SlowBolt(String outDir, int sleepMs, int recoverAfterSecs) {
            this(outDir, sleepMs, recoverAfterSecs, 0);
        }

        public SlowBolt(String outDir, int sleepMs, int recoverAfterSecs, int errors) {
            this.outDir = outDir;
            this.sleepMs = sleepMs;
            this.recoverAfterSecs = recoverAfterSecs;
            this.errors = errors;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            int taskId = context.getThisTaskId();
            this.seen = new LineFile(outDir, "slow-" + taskId + ".txt");
            this.progressLog = new LineFile(outDir, "slow-progress-" + taskId + ".txt");
            this.executed = new AtomicLong();
            this.preparedNanos = System.nanoTime();
            this.progress = ticker("slow-progress-" + taskId);
            progress.scheduleAtFixedRate(
                    () -> progressLog.line(
                            System.currentTimeMillis() + " " + executed.get() + " " + (recovered ? 1 : 0)),
                    0,
                    PROGRESS_PERIOD_MS,
                    TimeUnit.MILLISECONDS);
        }

        private boolean checkRecovered() {
            if (recovered) {
                return true;
            }
            long now = System.nanoTime();
            if (recoverAfterSecs > 0 && now - preparedNanos >= TimeUnit.SECONDS.toNanos(recoverAfterSecs)) {
                recovered = true;
            } else if (now >= nextMarkerCheckNanos) {
                nextMarkerCheckNanos = now + TimeUnit.MILLISECONDS.toNanos(100);
                recovered = Files.exists(Recorder.file(outDir, RECOVER_MARKER));
            }
            return recovered;
        }

        @Override
        public void execute(Tuple input) {
            if (!checkRecovered() && sleepMs > 0) {
                try {
                    Thread.sleep(sleepMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            seen.line(input.getIntegerByField("key") + " " + input.getLongByField("seq"));
            if (executed.incrementAndGet() <= errors) {
                collector.reportError(new IllegalStateException(
                        ERROR_TEXT + input.getIntegerByField("key") + ":" + input.getLongByField("seq")));
            }
            collector.ack(input);
        }

        @Override
        public void cleanup() {
            if (progress != null) {
                progress.shutdownNow();
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    static Map<String, Integer> options(String[] args, int from) {
        Map<String, Integer> opts = new HashMap<>();
        opts.put("keys", 16);
        opts.put("payload", 1024);
        opts.put("sleepms", 10);
        opts.put("slow", 2);
        opts.put("spouts", 1);
        opts.put("workers", 2);
        opts.put("timeout", 30);
        opts.put("recoverafter", 0);
        opts.put("errors", 0);
        for (int i = from; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            String key = eq < 0 ? args[i] : args[i].substring(0, eq);
            if (eq < 0 || !opts.containsKey(key)) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
            }
            opts.put(key, Integer.parseInt(args[i].substring(eq + 1)));
        }
        return opts;
    }

    public static void main(String[] args) throws Exception {
        String[] nd = Recorder.nameAndDir(args, "SlowBoltTopology");
        String name = nd[0];
        String out = nd[1];
        Map<String, Integer> o = options(args, 2);

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout(SPOUT, new FastSpout(out, o.get("keys"), o.get("payload")), o.get("spouts"));
        builder.setBolt(SLOW, new SlowBolt(out, o.get("sleepms"), o.get("recoverafter"), o.get("errors")), o.get("slow"))
                .shuffleGrouping(SPOUT);

        Config conf = new Config();
        conf.setNumWorkers(o.get("workers"));
        conf.setMessageTimeoutSecs(o.get("timeout"));
        // No topology.max.spout.pending: only backpressure may hold the spout back.
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }
}

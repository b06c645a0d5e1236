package org.apache.storm.metric;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's default event logger: one line per event ({@link IEventLogger.EventInfo#toString()}:
 * date, component, task, message id, values) appended to {@code events.log}, flushed every
 * second. Storm writes it in the worker's artifacts directory; Egret's worker is the event
 * logger's instance, so the file is in that instance's working directory
 * ({@code <topology dir>/work/<instance id>/events.log}).
 */
public class FileBasedEventLogger implements IEventLogger {
    private static final Logger LOG = LoggerFactory.getLogger(FileBasedEventLogger.class);
    private static final int FLUSH_INTERVAL_MILLIS = 1000;
    private static final String FILE_NAME = "events.log";

    private Path eventLogPath;
    private BufferedWriter eventLogWriter;
    private ScheduledExecutorService flushScheduler;
    private volatile boolean dirty;

    public FileBasedEventLogger() {
    }

    @Override
    public void prepare(Map<String, Object> conf, Map<String, Object> arguments, TopologyContext context) {
        String dir = context.getCodeDir();
        if (dir == null || dir.isEmpty()) {
            dir = System.getProperty("user.dir");
        }
        Path path = Paths.get(dir, FILE_NAME);
        File parent = path.toFile().getParentFile();
        if (parent != null && !parent.exists() && !parent.mkdirs() && !parent.isDirectory()) {
            throw new RuntimeException("Cannot create the directory of the event log " + path);
        }
        open(path);
        startFlushing();
    }

    private void open(Path path) {
        LOG.info("Event log file: {}", path);
        eventLogPath = path;
        try {
            eventLogWriter = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new RuntimeException("Cannot open the event log " + path + ": " + e.getMessage(), e);
        }
    }

    private void startFlushing() {
        flushScheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "event-logger-flush");
            t.setDaemon(true);
            return t;
        });
        flushScheduler.scheduleAtFixedRate(this::flushIfDirty, FLUSH_INTERVAL_MILLIS, FLUSH_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private void flushIfDirty() {
        if (!dirty) {
            return;
        }
        try {
            synchronized (this) {
                dirty = false;
                eventLogWriter.flush();
            }
        } catch (IOException e) {
            LOG.warn("Flushing the event log {} failed: {}", eventLogPath, e.getMessage());
        }
    }

    @Override
    public void log(EventInfo event) {
        try {
            synchronized (this) {
                eventLogWriter.write(buildLogMessage(event));
                eventLogWriter.newLine();
                dirty = true;
            }
        } catch (IOException e) {
            LOG.error("Writing event {} to {} failed", event, eventLogPath, e);
            throw new RuntimeException(e);
        }
    }

    /** The line written for {@code event}; override for another format. */
    protected String buildLogMessage(EventInfo event) {
        return event.toString();
    }

    @Override
    public void close() {
        if (flushScheduler != null) {
            flushScheduler.shutdown();
            try {
                if (!flushScheduler.awaitTermination(2, TimeUnit.SECONDS)) {
                    flushScheduler.shutdownNow();
                }
            } catch (InterruptedException e) {
                flushScheduler.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (eventLogWriter != null) {
            try {
                synchronized (this) {
                    eventLogWriter.close();
                }
            } catch (IOException e) {
                LOG.error("Closing the event log {} failed", eventLogPath, e);
            }
        }
    }
}

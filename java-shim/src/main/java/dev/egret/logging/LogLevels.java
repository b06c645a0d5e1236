package dev.egret.logging;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Storm's dynamic log levels in this JVM: the instance runtime hands over the topology's
 * entries (logger name to level, {@code ROOT} for the root) whenever they change; they
 * replace the previous ones, and a logger without an entry (for itself or a dotted prefix)
 * has the configured level again. Applies to Egret's own slf4j backend only.
 */
public final class LogLevels {
    private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(LogLevels.class);

    private LogLevels() {
    }

    /**
     * Replaces the set levels. Entries with a level this backend does not know are skipped
     * (the master refuses them; this is only a guard). Returns false when slf4j is not bound
     * to Egret's backend (a topology that brings its own binding keeps its own levels).
     */
    public static boolean apply(Map<String, String> entries) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof EgretLoggerFactory)) {
            LOG.warn("Log levels {} not applied: slf4j is bound to {}, not to Egret's backend", entries,
                    factory.getClass().getName());
            return false;
        }
        Map<String, Integer> levels = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : entries.entrySet()) {
            Integer level = EgretLogger.levelOf(e.getValue());
            if (level == null || e.getKey() == null || e.getKey().isEmpty()) {
                LOG.warn("Ignoring log level {} for logger '{}'", e.getValue(), e.getKey());
                continue;
            }
            levels.put(e.getKey(), level);
        }
        EgretLoggerFactory egret = (EgretLoggerFactory) factory;
        if (levels.equals(egret.levels())) {
            return true;
        }
        egret.setLevels(levels);
        LOG.info("Log levels now {}", entries.isEmpty() ? "as configured" : entries);
        return true;
    }
}

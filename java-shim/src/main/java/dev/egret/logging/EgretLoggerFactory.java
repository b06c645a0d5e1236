package dev.egret.logging;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/** Hands out one {@link EgretLogger} per name, all at the process-wide level. */
final class EgretLoggerFactory implements ILoggerFactory {
    private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
    private final int level;

    EgretLoggerFactory(int level) {
        this.level = level;
    }

    @Override
    public Logger getLogger(String name) {
        return loggers.computeIfAbsent(name, n -> new EgretLogger(n, level));
    }
}

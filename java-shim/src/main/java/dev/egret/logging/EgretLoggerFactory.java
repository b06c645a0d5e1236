package dev.egret.logging;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/**
 * Hands out one {@link EgretLogger} per name. A logger's level is the one set for its name,
 * else for its nearest dotted prefix ({@code com.acme} covers {@code com.acme.Foo}), else for
 * {@code ROOT}, else the process-wide level ({@code egret.log.level}). The set levels are
 * replaced at runtime by {@link #setLevels}; every logger handed out so far is updated.
 */
final class EgretLoggerFactory implements ILoggerFactory {
    static final String ROOT = Logger.ROOT_LOGGER_NAME;

    private final ConcurrentMap<String, EgretLogger> loggers = new ConcurrentHashMap<>();
    private final int level;
    /** Logger name to level; replaced whole, never changed in place. */
    private volatile Map<String, Integer> levels = Map.of();

    EgretLoggerFactory(int level) {
        this.level = level;
    }

    @Override
    public Logger getLogger(String name) {
        return loggers.computeIfAbsent(name, n -> new EgretLogger(n, effective(n, levels)));
    }

    /** The level of logger {@code name} under {@code set}. */
    int effective(String name, Map<String, Integer> set) {
        if (set.isEmpty()) {
            return level;
        }
        String n = name;
        while (true) {
            Integer l = set.get(n);
            if (l != null) {
                return l;
            }
            int dot = n.lastIndexOf('.');
            if (dot <= 0) {
                break;
            }
            n = n.substring(0, dot);
        }
        Integer root = set.get(ROOT);
        return root != null ? root : level;
    }

    /** Replaces the set levels (logger name to a level {@link EgretLogger#levelOf} knows). */
    synchronized void setLevels(Map<String, Integer> next) {
        Map<String, Integer> copy = Map.copyOf(next);
        levels = copy;
        // A logger created meanwhile read either map: recompute them all after publishing.
        for (EgretLogger l : loggers.values()) {
            l.setLevel(effective(l.getName(), copy));
        }
    }

    Map<String, Integer> levels() {
        return new TreeMap<>(levels);
    }
}

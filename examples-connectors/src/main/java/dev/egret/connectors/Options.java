package dev.egret.connectors;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The arguments of the example mains: the topology name, then {@code key=value} pairs.
 * A missing or malformed one is an {@link IllegalArgumentException} naming it.
 */
final class Options {
    final String name;
    private final Map<String, String> values = new LinkedHashMap<>();

    Options(String[] args, String usage) {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: " + usage);
        }
        name = args[0];
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("argument '" + args[i] + "' is not key=value; usage: " + usage);
            }
            values.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
    }

    String get(String key) {
        String v = values.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing argument " + key + "=...");
        }
        return v;
    }

    String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    long getLong(String key, long fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("argument " + key + "=" + v + " is not a number", e);
        }
    }

    int getInt(String key, int fallback) {
        return Math.toIntExact(getLong(key, fallback));
    }
}

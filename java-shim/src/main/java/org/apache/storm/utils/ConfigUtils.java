package org.apache.storm.utils;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Storm's config helpers. Only the topology-facing {@link #getValueAsList} so far; the rest
 * of Storm's {@code ConfigUtils} (the daemons' local directories, blob keys, supervisor and
 * worker paths) concerns daemons Egret does not run.
 */
public class ConfigUtils {
    public ConfigUtils() {
    }

    /**
     * The value of {@code name} in {@code conf} as a list of strings: a collection's elements
     * as strings, anything else as a string split on whitespace (e.g. {@code worker.childopts}
     * {@code "-Xms1g -Xmx1g"}); null when the value is null.
     *
     * @throws IllegalArgumentException when {@code conf} is null
     * @throws NullPointerException when {@code name} is null and {@code conf} takes no null key
     */
    public static List<String> getValueAsList(String name, Map<String, Object> conf) {
        if (conf == null) {
            throw new IllegalArgumentException("Conf is required");
        }
        Object value = conf.get(name);
        if (value == null) {
            return null;
        }
        if (value instanceof Collection) {
            return ((Collection<?>) value).stream().map(String::valueOf).collect(Collectors.toList());
        }
        return Arrays.asList(ObjectReader.getString(value).split("\\s+"));
    }
}

package org.apache.storm.utils;

import java.io.File;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.validation.ConfigValidation;
import org.apache.storm.validation.ConfigValidationAnnotations;

/**
 * Storm's config helpers that topology code uses: {@link #getValueAsList}, reading and
 * validating configs, the cluster mode, stats sampling, password masking and the blob keys of
 * a topology. The rest of Storm's {@code ConfigUtils} (the daemons' local directories,
 * supervisor and worker paths, {@code LocalState}) concerns daemons Egret does not run.
 */
public class ConfigUtils {
    public static final String FILE_SEPARATOR = File.separator;
    public static final String STORM_HOME = "storm.home";
    public static final String RESOURCES_SUBDIR = "resources";

    private static final Set<String> PASSWORD_KEYS = passwordKeys();
    private static ConfigUtils instance = new ConfigUtils();

    public ConfigUtils() {
    }

    /** Makes {@code u} the implementation behind the static methods; returns the previous one (tests). */
    public static ConfigUtils setInstance(ConfigUtils u) {
        ConfigUtils old = instance;
        instance = u;
        return old;
    }

    private static Set<String> passwordKeys() {
        Set<String> keys = new HashSet<>();
        for (Class<?> c : ConfigValidation.getConfigClasses()) {
            for (java.lang.reflect.Field f : c.getFields()) {
                if (f.isAnnotationPresent(ConfigValidationAnnotations.Password.class)) {
                    try {
                        keys.add((String) f.get(null));
                    } catch (IllegalAccessException | ClassCastException e) {
                        // not a key constant
                    }
                }
            }
        }
        return Collections.unmodifiableSet(keys);
    }

    /** {@code conf} with the value of every key annotated {@code @Password} shown as {@code *****}. */
    public static Map<String, Object> maskPasswords(Map<String, Object> conf) {
        Map<String, Object> masked = new HashMap<>(conf);
        for (String key : PASSWORD_KEYS) {
            if (masked.containsKey(key)) {
                masked.put(key, "*****");
            }
        }
        return masked;
    }

    /** Whether {@code storm.cluster.mode} is {@code local}; an unknown mode is an error. */
    public static boolean isLocalMode(Map<String, Object> conf) {
        String mode = (String) conf.get(Config.STORM_CLUSTER_MODE);
        if (mode != null) {
            if ("local".equals(mode)) {
                return true;
            }
            if ("distributed".equals(mode)) {
                return false;
            }
            throw new IllegalArgumentException("Illegal cluster mode in conf: " + mode);
        }
        return true;
    }

    /** One in how many tuples the stats sample: 1 / {@code topology.stats.sample.rate}. */
    public static int samplingRate(Map<String, Object> conf) {
        double rate = ObjectReader.getDouble(conf.get(Config.TOPOLOGY_STATS_SAMPLE_RATE));
        if (rate != 0) {
            return (int) (1 / rate);
        }
        throw new IllegalArgumentException("Illegal topology.stats.sample.rate in conf: " + rate);
    }

    /** True once in every {@code samplingFreq} calls, at a random place in each run of that many. */
    public static BooleanSupplier evenSampler(int samplingFreq) {
        Random random = new Random();
        return new BooleanSupplier() {
            private int curr = -1;
            private int target = random.nextInt(samplingFreq);

            @Override
            public boolean getAsBoolean() {
                curr++;
                if (curr >= samplingFreq) {
                    curr = 0;
                    target = random.nextInt(samplingFreq);
                }
                return curr == target;
            }
        };
    }

    /** {@link #evenSampler} at the config's {@link #samplingRate}. */
    public static BooleanSupplier mkStatsSampler(Map<String, Object> conf) {
        return evenSampler(samplingRate(conf));
    }

    /** A yaml config file (from the classpath or the file system), validated. */
    public static Map<String, Object> readYamlConfig(String name, boolean mustExist) {
        Map<String, Object> conf = Utils.findAndReadConfigFile(name, mustExist);
        ConfigValidation.validateFields(conf);
        return conf;
    }

    /** A yaml config file that must exist, validated. */
    public static Map<String, Object> readYamlConfig(String name) {
        return readYamlConfig(name, true);
    }

    /** The Storm config as {@link Utils#readStormConfig()} reads it, validated. */
    public static Map<String, Object> readStormConfig() {
        return instance.readStormConfigImpl();
    }

    public Map<String, Object> readStormConfigImpl() {
        Map<String, Object> conf = Utils.readStormConfig();
        ConfigValidation.validateFields(conf);
        return conf;
    }

    /** {@code dir} followed by the file separator, or the empty string for null. */
    public static String concatIfNotNull(String dir) {
        return dir == null ? "" : dir + FILE_SEPARATOR;
    }

    /** The topology id of a topology's blob key ({@code id-stormjar.jar}, {@code -stormcode.ser}, {@code -stormconf.ser}), else null. */
    public static String getIdFromBlobKey(String key) {
        if (key == null) {
            return null;
        }
        for (String suffix : new String[] {"-stormjar.jar", "-stormcode.ser", "-stormconf.ser"}) {
            if (key.endsWith(suffix)) {
                return key.substring(0, key.length() - suffix.length());
            }
        }
        return null;
    }

    public static String masterStormJarKey(String topologyId) {
        return topologyId + "-stormjar.jar";
    }

    public static String masterStormCodeKey(String topologyId) {
        return topologyId + "-stormcode.ser";
    }

    public static String masterStormConfKey(String topologyId) {
        return topologyId + "-stormconf.ser";
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

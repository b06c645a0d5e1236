package org.apache.storm.topology;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Base of a topology main that takes {@code -conf <file.yaml>} arguments: each file's map
 * is merged into {@link #conf} (a file whose only top-level key is {@code config} is
 * unwrapped, so Flux files can be shared), the other arguments go to {@link #run}.
 */
public abstract class ConfigurableTopology {
    protected Config conf = new Config();

    public ConfigurableTopology() {
    }

    public static void start(ConfigurableTopology topology, String[] args) {
        String[] remainingArgs = topology.parse(args);
        try {
            topology.run(remainingArgs);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Merges a YAML file into {@code conf}.
     *
     * @throws FileNotFoundException if the file does not exist
     */
    @SuppressWarnings("unchecked")
    public static Config loadConf(String resource, Config conf) throws FileNotFoundException {
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        Object loaded;
        try (InputStream in = new FileInputStream(resource)) {
            loaded = yaml.load(in);
        } catch (FileNotFoundException e) {
            throw e;
        } catch (IOException e) {
            throw new RuntimeException("Cannot read config file " + resource, e);
        }
        if (loaded == null) {
            return conf;
        }
        if (!(loaded instanceof Map)) {
            throw new IllegalArgumentException("Config file " + resource + " is not a YAML map");
        }
        Map<String, Object> ret = (Map<String, Object>) loaded;
        // Shared with Flux: a file holding only "config:" has the topology config beneath it.
        if (ret.size() == 1 && ret.get("config") instanceof Map) {
            ret = (Map<String, Object>) ret.get("config");
        }
        conf.putAll(ret);
        return conf;
    }

    protected Config getConf() {
        return conf;
    }

    protected abstract int run(String[] args) throws Exception;

    /** Submits under the name in {@code topology.name}. */
    protected int submit(Config conf, TopologyBuilder builder) {
        Object name = conf.get(Config.TOPOLOGY_NAME);
        if (name == null || name.toString().isBlank()) {
            throw new RuntimeException("No value found for " + Config.TOPOLOGY_NAME);
        }
        return submit(name.toString(), conf, builder);
    }

    /** Submits; returns 0, or -1 after printing the error. */
    protected int submit(String name, Config conf, TopologyBuilder builder) {
        try {
            StormSubmitter.submitTopology(name, conf, builder.createTopology());
        } catch (Exception e) {
            e.printStackTrace();
            return -1;
        }
        return 0;
    }

    private String[] parse(String[] args) {
        List<String> newArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if ("-conf".equals(args[i]) && i + 1 < args.length) {
                String file = args[++i].trim();
                try {
                    loadConf(file, conf);
                } catch (FileNotFoundException e) {
                    throw new RuntimeException("Config file " + file + " does not exist", e);
                }
            } else {
                newArgs.add(args[i]);
            }
        }
        return newArgs.toArray(new String[0]);
    }
}

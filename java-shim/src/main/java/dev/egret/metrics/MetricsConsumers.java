package dev.egret.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.Constants;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.NullStruct;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.Utils;

/**
 * Storm's metrics consumer components, computed at submission from
 * {@code topology.metrics.consumer.register}: one bolt component per registration, with
 * Storm's ids ({@code __metrics_<class>}, then {@code __metrics_<class>#2}, ... for the
 * same class registered again), {@code parallelism.hint} executors and tasks (default 1),
 * subscribed with a shuffle grouping to the {@code __metrics} stream of every user
 * component. Every component, the consumers included, declares that stream with the
 * fields {@code task-info, data-points}.
 */
public final class MetricsConsumers {
    /** The fields of the {@code __metrics} stream: a TaskInfo and a collection of DataPoints. */
    public static final List<String> STREAM_FIELDS = List.of("task-info", "data-points");

    private MetricsConsumers() {
    }

    /** One consumer component, in Storm's thrift terms (the capture converts it like any bolt). */
    public static final class Spec {
        public final String id;
        public final ComponentCommon common;
        public final ComponentObject object;

        public Spec(String id, ComponentCommon common, ComponentObject object) {
            this.id = id;
            this.common = common;
            this.object = object;
        }
    }

    /**
     * The consumer components for {@code conf}, in registration order; empty when no consumer
     * is registered.
     *
     * @param sources the ids of the components whose metrics the consumers receive
     * @throws InvalidTopologyException when a registration is malformed
     */
    public static List<Spec> fromConfig(Map<String, Object> conf, Iterable<String> sources)
            throws InvalidTopologyException {
        Object reg = conf.get(Config.TOPOLOGY_METRICS_CONSUMER_REGISTER);
        List<Spec> out = new ArrayList<>();
        if (reg == null) {
            return out;
        }
        if (!(reg instanceof List)) {
            throw new InvalidTopologyException(Config.TOPOLOGY_METRICS_CONSUMER_REGISTER
                    + " must be a list of maps, not " + reg);
        }
        Map<GlobalStreamId, Grouping> inputs = new LinkedHashMap<>();
        for (String source : sources) {
            inputs.put(new GlobalStreamId(source, Constants.METRICS_STREAM_ID), Grouping.shuffle(new NullStruct()));
        }
        Map<String, Integer> occurrences = new HashMap<>();
        for (Object o : (List<?>) reg) {
            if (!(o instanceof Map)) {
                throw new InvalidTopologyException("Each entry of " + Config.TOPOLOGY_METRICS_CONSUMER_REGISTER
                        + " must be a map with a \"class\", not " + o);
            }
            Map<?, ?> info = (Map<?, ?>) o;
            Object klass = info.get("class");
            if (!(klass instanceof String) || ((String) klass).isBlank()) {
                throw new InvalidTopologyException("A metrics consumer registration has no \"class\": " + info);
            }
            String className = (String) klass;
            int parallelism;
            try {
                parallelism = ObjectReader.getInt(info.get("parallelism.hint"), 1);
            } catch (IllegalArgumentException e) {
                throw new InvalidTopologyException("Metrics consumer " + className + ": parallelism.hint "
                        + e.getMessage());
            }
            if (parallelism < 1) {
                throw new InvalidTopologyException("Metrics consumer " + className + " has a parallelism.hint of "
                        + parallelism + "; it must be positive");
            }
            int n = occurrences.merge(className, 1, Integer::sum);
            String id = Constants.METRICS_COMPONENT_ID_PREFIX + className + (n > 1 ? "#" + n : "");

            MetricsConsumerBolt bolt;
            try {
                bolt = new MetricsConsumerBolt(className, info.get("argument"), strings(info.get("whitelist")),
                        strings(info.get("blacklist")), ObjectReader.getBoolean(info.get("expandMapType"), false),
                        info.get("metricNameSeparator") == null ? "." : String.valueOf(info.get("metricNameSeparator")));
            } catch (IllegalArgumentException e) {
                throw new InvalidTopologyException(e.getMessage());
            }
            Map<String, Object> ownConf = new HashMap<>();
            ownConf.put(Config.TOPOLOGY_TASKS, (long) parallelism);
            Object memory = conf.get(Config.TOPOLOGY_METRICS_CONSUMER_RESOURCES_ONHEAP_MEMORY_MB);
            if (memory instanceof Number) {
                ownConf.put(Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB, memory);
            }
            Object cpu = conf.get(Config.TOPOLOGY_METRICS_CONSUMER_CPU_PCORE_PERCENT);
            if (cpu instanceof Number) {
                ownConf.put(Config.TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT, cpu);
            }
            ComponentCommon common = new ComponentCommon(new LinkedHashMap<>(inputs), new HashMap<>());
            common.set_parallelism_hint(parallelism);
            common.set_json_conf(dev.egret.runtime.ConfigJson.toJson(ownConf));
            byte[] serialized;
            try {
                serialized = Utils.javaSerialize(bolt);
            } catch (RuntimeException e) {
                throw new InvalidTopologyException("Metrics consumer " + className
                        + ": its registration argument is not serializable (" + e.getMessage() + ")");
            }
            out.add(new Spec(id, common, ComponentObject.serialized_java(serialized)));
        }
        return out;
    }

    private static List<String> strings(Object o) throws InvalidTopologyException {
        if (o == null) {
            return null;
        }
        if (!(o instanceof List)) {
            throw new InvalidTopologyException("A metrics consumer whitelist/blacklist must be a list of"
                    + " regular expressions, not " + o);
        }
        List<String> out = new ArrayList<>();
        for (Object e : (List<?>) o) {
            out.add(String.valueOf(e));
        }
        return out;
    }
}

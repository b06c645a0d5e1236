package org.apache.storm.topology;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.Config;

/**
 * The typed configuration setters of a declarer, each storing Storm's key through
 * {@link #addConfiguration(String, Object)}.
 */
public abstract class BaseConfigurationDeclarer<T extends ComponentConfigurationDeclarer>
        implements ComponentConfigurationDeclarer<T> {

    public BaseConfigurationDeclarer() {
    }

    @Override
    public T addConfiguration(String config, Object value) {
        Map<String, Object> configMap = new HashMap<>();
        configMap.put(config, value);
        return addConfigurations(configMap);
    }

    @Override
    public T setDebug(boolean debug) {
        return addConfiguration(Config.TOPOLOGY_DEBUG, debug);
    }

    @Override
    public T setMaxTaskParallelism(Number val) {
        if (val != null) {
            val = val.intValue();
        }
        return addConfiguration(Config.TOPOLOGY_MAX_TASK_PARALLELISM, val);
    }

    @Override
    public T setMaxSpoutPending(Number val) {
        if (val != null) {
            val = val.intValue();
        }
        return addConfiguration(Config.TOPOLOGY_MAX_SPOUT_PENDING, val);
    }

    @Override
    public T setNumTasks(Number val) {
        if (val != null) {
            val = val.intValue();
        }
        return addConfiguration(Config.TOPOLOGY_TASKS, val);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T setMemoryLoad(Number onHeap) {
        if (onHeap != null) {
            return addConfiguration(Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB, onHeap.doubleValue());
        }
        return (T) this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T setMemoryLoad(Number onHeap, Number offHeap) {
        T ret = (T) this;
        if (onHeap != null) {
            ret = addConfiguration(Config.TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB, onHeap.doubleValue());
        }
        if (offHeap != null) {
            ret = addConfiguration(Config.TOPOLOGY_COMPONENT_RESOURCES_OFFHEAP_MEMORY_MB, offHeap.doubleValue());
        }
        return ret;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T setCPULoad(Number amount) {
        if (amount != null) {
            return addConfiguration(Config.TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT, amount.doubleValue());
        }
        return (T) this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T addResource(String resourceName, Number resourceValue) {
        Map<String, Object> current = getComponentConfiguration();
        Map<String, Double> resources = new HashMap<>();
        Object existing = current == null ? null : current.get(Config.TOPOLOGY_COMPONENT_RESOURCES_MAP);
        if (existing instanceof Map) {
            ((Map<String, Object>) existing).forEach((k, v) -> {
                if (v instanceof Number) {
                    resources.put(k, ((Number) v).doubleValue());
                }
            });
        }
        resources.put(resourceName, resourceValue.doubleValue());
        return addConfiguration(Config.TOPOLOGY_COMPONENT_RESOURCES_MAP, resources);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T addResources(Map<String, Double> resources) {
        T ret = (T) this;
        if (resources != null) {
            for (Map.Entry<String, Double> e : resources.entrySet()) {
                ret = addResource(e.getKey(), e.getValue());
            }
        }
        return ret;
    }
}

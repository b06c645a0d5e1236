package org.apache.storm.topology;

import java.util.Map;

/** Component-level configuration set fluently on a declarer. */
public interface ComponentConfigurationDeclarer<T extends ComponentConfigurationDeclarer> extends ResourceDeclarer<T> {
    T addConfigurations(Map<String, Object> conf);

    /** The component's configuration as built so far. */
    Map<String, Object> getComponentConfiguration();

    T addConfiguration(String config, Object value);

    T setDebug(boolean debug);

    T setMaxTaskParallelism(Number val);

    T setMaxSpoutPending(Number val);

    T setNumTasks(Number val);

    T addResources(Map<String, Double> resources);

    T addResource(String resourceName, Number resourceValue);
}

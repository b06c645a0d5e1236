package org.apache.storm.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.TopologyContext;

/**
 * Storm's default state provider: one {@link InMemoryKeyValueState} per namespace, shared
 * by the whole JVM, so a task that is prepared again in the same process finds its
 * committed state. Nothing survives the process (in Egret: the instance's JVM).
 */
public class InMemoryKeyValueStateProvider implements StateProvider {
    private static final Map<String, State> STATES = new ConcurrentHashMap<>();

    @Override
    public State newState(String namespace, Map<String, Object> topoConf, TopologyContext context) {
        return STATES.computeIfAbsent(namespace, ns -> new InMemoryKeyValueState<>());
    }
}

package org.apache.storm.state;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * Storm's default state provider: every {@link #newState} call makes a new, empty
 * {@link InMemoryKeyValueState}, as in Storm. The executor that asked for it holds it, so
 * a rollback within the instance finds the last committed state; nothing is shared
 * between callers and nothing survives the process (in Egret: the instance's JVM).
 */
public class InMemoryKeyValueStateProvider implements StateProvider {
    @Override
    public State newState(String namespace, Map<String, Object> topoConf, TopologyContext context) {
        return new InMemoryKeyValueState<>();
    }
}

package org.apache.storm.state;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * Storm's default state provider: every {@link #newState} call makes a new
 * {@link InMemoryKeyValueState}, as in Storm. The executor that asked for it holds it, so
 * a rollback within the instance finds the last committed state; nothing is shared
 * between callers. Egret: in an instance JVM the state is also durable (its prepared and
 * committed copies go to the topology's checkpoint store, and a new one of the same task
 * and namespace starts from the last complete checkpoint); elsewhere (a unit test) it is
 * in memory only, as in Storm.
 */
public class InMemoryKeyValueStateProvider implements StateProvider {
    @Override
    public State newState(String namespace, Map<String, Object> topoConf, TopologyContext context) {
        return new InMemoryKeyValueState<>(DurableBacking.of(namespace, topoConf, context));
    }
}

package org.apache.storm.state;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/** Makes the {@link State}s of a kind; named by {@code topology.state.provider}. */
public interface StateProvider {
    State newState(String namespace, Map<String, Object> topoConf, TopologyContext context);
}

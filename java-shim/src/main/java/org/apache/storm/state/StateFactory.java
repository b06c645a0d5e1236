package org.apache.storm.state;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Makes a {@link State} with the provider named by {@code topology.state.provider}. */
public class StateFactory {
    private static final Logger LOG = LoggerFactory.getLogger(StateFactory.class);
    private static final String DEFAULT_PROVIDER = "org.apache.storm.state.InMemoryKeyValueStateProvider";

    public StateFactory() {
    }

    /**
     * The state of a namespace (by convention {@code component-taskId}).
     *
     * @throws RuntimeException if the provider cannot be loaded or made
     */
    public static State getState(String namespace, Map<String, Object> topoConf, TopologyContext context) {
        Object configured = topoConf.get(Config.TOPOLOGY_STATE_PROVIDER);
        String provider = configured == null ? DEFAULT_PROVIDER : configured.toString();
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class<?> klass = Class.forName(provider, true, cl != null ? cl : StateFactory.class.getClassLoader());
            Object object = klass.getDeclaredConstructor().newInstance();
            if (!(object instanceof StateProvider)) {
                throw new RuntimeException("Invalid state provider '" + provider
                        + "'. Should implement org.apache.storm.state.StateProvider");
            }
            State state = ((StateProvider) object).newState(namespace, topoConf, context);
            LOG.info("Got state instance of type {} for namespace {}", state.getClass().getName(), namespace);
            return state;
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new RuntimeException("Could not make the state provider " + provider + ": " + e, e);
        }
    }
}

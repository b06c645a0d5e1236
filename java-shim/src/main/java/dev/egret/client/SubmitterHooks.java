package dev.egret.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.ISubmitterHook;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.hooks.SubmitterHookException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's submission notifier: after a successful submission, the class named by
 * {@code storm.topology.submission.notifier.plugin.class} in the merged config is created
 * (no-argument constructor, this JVM's context class loader) and its
 * {@link ISubmitterHook#notify} called once, in the submitting thread, with the topology's
 * {@link TopologyInfo}, the merged config and the topology.
 *
 * <p>As in Storm, anything that goes wrong (an empty or unknown class name, a class that is not
 * an {@code ISubmitterHook}, a hook that throws) surfaces as a {@link SubmitterHookException}
 * from {@code StormSubmitter.submitTopology*}; the topology has been submitted by then and keeps
 * running.
 *
 * <p>The {@code TopologyInfo} has what egret knows at that moment: {@code id} (the id egret
 * assigned), {@code name}, {@code status} {@code "ACTIVE"} (Egret starts topologies active),
 * {@code uptime_secs} 0, no executors and no errors yet, and {@code owner} (the submitting
 * user, {@code user.name}).
 */
public final class SubmitterHooks {
    private static final Logger LOG = LoggerFactory.getLogger(SubmitterHooks.class);

    private SubmitterHooks() {
    }

    /** Runs the configured hook, if any; see the class comment. */
    public static void notifyHook(String name, String topologyId, Map<String, Object> conf, StormTopology topology) {
        if (conf == null || !conf.containsKey(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN)) {
            return;
        }
        Object configured = conf.get(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN);
        String className = configured == null ? null : configured.toString().trim();
        try {
            if (className == null || className.isEmpty()) {
                throw new IllegalArgumentException(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN
                        + " property must be a non empty string.");
            }
            LOG.info("Initializing the registered ISubmitterHook [{}]", className);
            ISubmitterHook hook = newHook(className);
            TopologyInfo info = topologyInfo(name, topologyId);
            LOG.info("Invoking the registered ISubmitterHook [{}]", className);
            hook.notify(info, conf, topology);
        } catch (Exception e) {
            LOG.warn("Error occurred in invoking submitter hook:[{}] ", className, e);
            throw new SubmitterHookException(e);
        }
    }

    static ISubmitterHook newHook(String className) throws ReflectiveOperationException {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = SubmitterHooks.class.getClassLoader();
        }
        Class<?> cls = Class.forName(className, true, loader);
        if (!ISubmitterHook.class.isAssignableFrom(cls)) {
            throw new IllegalArgumentException(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN + " names "
                    + className + ", which does not implement org.apache.storm.ISubmitterHook");
        }
        return (ISubmitterHook) cls.getDeclaredConstructor().newInstance();
    }

    static TopologyInfo topologyInfo(String name, String topologyId) {
        TopologyInfo info = new TopologyInfo(topologyId, name, 0, new ArrayList<>(), "ACTIVE", new HashMap<>());
        String user = System.getProperty("user.name");
        if (user != null) {
            info.set_owner(user);
        }
        return info;
    }
}

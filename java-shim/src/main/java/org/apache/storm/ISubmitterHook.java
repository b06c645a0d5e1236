package org.apache.storm;

import java.util.Map;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;

/**
 * Told of every topology {@link StormSubmitter} submitted successfully; named by
 * {@code storm.topology.submission.notifier.plugin.class} and created with its no-argument
 * constructor in the submitting JVM.
 */
public interface ISubmitterHook {
    void notify(TopologyInfo topologyInfo, Map<String, Object> topoConf, StormTopology topology)
            throws IllegalAccessException;
}

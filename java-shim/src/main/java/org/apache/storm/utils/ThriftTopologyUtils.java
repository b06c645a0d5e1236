package org.apache.storm.utils;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StateSpoutSpec;
import org.apache.storm.generated.StormTopology;

/** Helpers over a Thrift {@link StormTopology}: its components, whatever their kind. */
public class ThriftTopologyUtils {
    public ThriftTopologyUtils() {
    }

    /** Whether {@code field} is the topology's worker hooks (not a component map). */
    public static boolean isWorkerHook(StormTopology._Fields field) {
        return field == StormTopology._Fields.WORKER_HOOKS;
    }

    /** Whether {@code field} is one of the topology's dependency lists (jars or artifacts). */
    public static boolean isDependencies(StormTopology._Fields field) {
        return field == StormTopology._Fields.DEPENDENCY_JARS || field == StormTopology._Fields.DEPENDENCY_ARTIFACTS;
    }

    /** The ids of the topology's spouts, bolts and state spouts (worker hooks are not components). */
    public static Set<String> getComponentIds(StormTopology topology) {
        Set<String> ids = new HashSet<>();
        if (topology.get_spouts() != null) {
            ids.addAll(topology.get_spouts().keySet());
        }
        if (topology.get_bolts() != null) {
            ids.addAll(topology.get_bolts().keySet());
        }
        if (topology.get_state_spouts() != null) {
            ids.addAll(topology.get_state_spouts().keySet());
        }
        return ids;
    }

    /**
     * The {@link ComponentCommon} of the spout, bolt or state spout {@code componentId}.
     *
     * @throws IllegalArgumentException when the topology has no such component
     */
    public static ComponentCommon getComponentCommon(StormTopology topology, String componentId) {
        Map<String, SpoutSpec> spouts = topology.get_spouts();
        if (spouts != null && spouts.containsKey(componentId)) {
            return spouts.get(componentId).get_common();
        }
        Map<String, Bolt> bolts = topology.get_bolts();
        if (bolts != null && bolts.containsKey(componentId)) {
            return bolts.get(componentId).get_common();
        }
        Map<String, StateSpoutSpec> stateSpouts = topology.get_state_spouts();
        if (stateSpouts != null && stateSpouts.containsKey(componentId)) {
            return stateSpouts.get(componentId).get_common();
        }
        throw new IllegalArgumentException("Could not find component common for " + componentId);
    }
}

package org.apache.storm.generated;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A built topology as {@link org.apache.storm.topology.TopologyBuilder#createTopology()}
 * returns it: spouts and bolts by id, each with its serialized object and common part.
 * Egret's submitter turns it into the {@code dev.egret.proto.Topology} message.
 */
public class StormTopology implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private Map<String, SpoutSpec> spouts;
    private Map<String, Bolt> bolts;
    private Map<String, StateSpoutSpec> stateSpouts;
    private List<ByteBuffer> workerHooks;
    private List<String> dependencyJars;
    private List<String> dependencyArtifacts;
    private String stormVersion;
    private String jdkVersion;
    private Map<String, Set<String>> componentToSharedMemory;
    private Map<String, SharedMemory> sharedMemory;

    public StormTopology() {
    }

    public StormTopology(Map<String, SpoutSpec> spouts, Map<String, Bolt> bolts,
            Map<String, StateSpoutSpec> stateSpouts) {
        this.spouts = spouts;
        this.bolts = bolts;
        this.stateSpouts = stateSpouts;
    }

    public StormTopology(StormTopology other) {
        if (other.spouts != null) {
            spouts = new HashMap<>();
            other.spouts.forEach((k, v) -> spouts.put(k, new SpoutSpec(v)));
        }
        if (other.bolts != null) {
            bolts = new HashMap<>();
            other.bolts.forEach((k, v) -> bolts.put(k, new Bolt(v)));
        }
        if (other.stateSpouts != null) {
            stateSpouts = new HashMap<>();
            other.stateSpouts.forEach((k, v) -> stateSpouts.put(k, new StateSpoutSpec(v)));
        }
        workerHooks = other.workerHooks == null ? null : new ArrayList<>(other.workerHooks);
        dependencyJars = other.dependencyJars == null ? null : new ArrayList<>(other.dependencyJars);
        dependencyArtifacts = other.dependencyArtifacts == null ? null : new ArrayList<>(other.dependencyArtifacts);
        stormVersion = other.stormVersion;
        jdkVersion = other.jdkVersion;
        componentToSharedMemory = other.componentToSharedMemory == null ? null
                : new HashMap<>(other.componentToSharedMemory);
        sharedMemory = other.sharedMemory == null ? null : new HashMap<>(other.sharedMemory);
    }

    public StormTopology deepCopy() {
        return new StormTopology(this);
    }

    public int get_spouts_size() {
        return spouts == null ? 0 : spouts.size();
    }

    public void put_to_spouts(String key, SpoutSpec value) {
        if (spouts == null) {
            spouts = new HashMap<>();
        }
        spouts.put(key, value);
    }

    public Map<String, SpoutSpec> get_spouts() {
        return spouts;
    }

    public void set_spouts(Map<String, SpoutSpec> spouts) {
        this.spouts = spouts;
    }

    public boolean is_set_spouts() {
        return spouts != null;
    }

    public int get_bolts_size() {
        return bolts == null ? 0 : bolts.size();
    }

    public void put_to_bolts(String key, Bolt value) {
        if (bolts == null) {
            bolts = new HashMap<>();
        }
        bolts.put(key, value);
    }

    public Map<String, Bolt> get_bolts() {
        return bolts;
    }

    public void set_bolts(Map<String, Bolt> bolts) {
        this.bolts = bolts;
    }

    public boolean is_set_bolts() {
        return bolts != null;
    }

    public int get_state_spouts_size() {
        return stateSpouts == null ? 0 : stateSpouts.size();
    }

    public void put_to_state_spouts(String key, StateSpoutSpec value) {
        if (stateSpouts == null) {
            stateSpouts = new HashMap<>();
        }
        stateSpouts.put(key, value);
    }

    public Map<String, StateSpoutSpec> get_state_spouts() {
        return stateSpouts;
    }

    public void set_state_spouts(Map<String, StateSpoutSpec> stateSpouts) {
        this.stateSpouts = stateSpouts;
    }

    public int get_worker_hooks_size() {
        return workerHooks == null ? 0 : workerHooks.size();
    }

    public Iterator<ByteBuffer> get_worker_hooks_iterator() {
        return workerHooks == null ? null : workerHooks.iterator();
    }

    public void add_to_worker_hooks(ByteBuffer hook) {
        if (workerHooks == null) {
            workerHooks = new ArrayList<>();
        }
        workerHooks.add(hook);
    }

    public List<ByteBuffer> get_worker_hooks() {
        return workerHooks;
    }

    public void set_worker_hooks(List<ByteBuffer> workerHooks) {
        this.workerHooks = workerHooks;
    }

    public boolean is_set_worker_hooks() {
        return workerHooks != null;
    }

    public int get_dependency_jars_size() {
        return dependencyJars == null ? 0 : dependencyJars.size();
    }

    public Iterator<String> get_dependency_jars_iterator() {
        return dependencyJars == null ? null : dependencyJars.iterator();
    }

    public void add_to_dependency_jars(String jar) {
        if (dependencyJars == null) {
            dependencyJars = new ArrayList<>();
        }
        dependencyJars.add(jar);
    }

    public List<String> get_dependency_jars() {
        return dependencyJars;
    }

    public void set_dependency_jars(List<String> dependencyJars) {
        this.dependencyJars = dependencyJars;
    }

    public int get_dependency_artifacts_size() {
        return dependencyArtifacts == null ? 0 : dependencyArtifacts.size();
    }

    public Iterator<String> get_dependency_artifacts_iterator() {
        return dependencyArtifacts == null ? null : dependencyArtifacts.iterator();
    }

    public void add_to_dependency_artifacts(String artifact) {
        if (dependencyArtifacts == null) {
            dependencyArtifacts = new ArrayList<>();
        }
        dependencyArtifacts.add(artifact);
    }

    public List<String> get_dependency_artifacts() {
        return dependencyArtifacts;
    }

    public void set_dependency_artifacts(List<String> dependencyArtifacts) {
        this.dependencyArtifacts = dependencyArtifacts;
    }

    public String get_storm_version() {
        return stormVersion;
    }

    public void set_storm_version(String stormVersion) {
        this.stormVersion = stormVersion;
    }

    public boolean is_set_storm_version() {
        return stormVersion != null;
    }

    public String get_jdk_version() {
        return jdkVersion;
    }

    public void set_jdk_version(String jdkVersion) {
        this.jdkVersion = jdkVersion;
    }

    public int get_component_to_shared_memory_size() {
        return componentToSharedMemory == null ? 0 : componentToSharedMemory.size();
    }

    public void put_to_component_to_shared_memory(String key, Set<String> value) {
        if (componentToSharedMemory == null) {
            componentToSharedMemory = new HashMap<>();
        }
        componentToSharedMemory.put(key, value);
    }

    public Map<String, Set<String>> get_component_to_shared_memory() {
        return componentToSharedMemory;
    }

    public void set_component_to_shared_memory(Map<String, Set<String>> value) {
        this.componentToSharedMemory = value;
    }

    public int get_shared_memory_size() {
        return sharedMemory == null ? 0 : sharedMemory.size();
    }

    public void put_to_shared_memory(String key, SharedMemory value) {
        if (sharedMemory == null) {
            sharedMemory = new HashMap<>();
        }
        sharedMemory.put(key, value);
    }

    public Map<String, SharedMemory> get_shared_memory() {
        return sharedMemory;
    }

    public void set_shared_memory(Map<String, SharedMemory> sharedMemory) {
        this.sharedMemory = sharedMemory;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StormTopology)) {
            return false;
        }
        StormTopology t = (StormTopology) o;
        return Objects.equals(spouts, t.spouts) && Objects.equals(bolts, t.bolts)
                && Objects.equals(stateSpouts, t.stateSpouts) && Objects.equals(stormVersion, t.stormVersion);
    }

    @Override
    public int hashCode() {
        return Objects.hash(spouts, bolts, stateSpouts, stormVersion);
    }

    @Override
    public String toString() {
        return "StormTopology(spouts:" + (spouts == null ? null : spouts.keySet()) + ", bolts:"
                + (bolts == null ? null : bolts.keySet()) + ")";
    }

    public void clear() {
        spouts = null;
        bolts = null;
        stateSpouts = null;
        workerHooks = null;
        dependencyJars = null;
        dependencyArtifacts = null;
        stormVersion = null;
        jdkVersion = null;
        componentToSharedMemory = null;
        sharedMemory = null;
    }

    public boolean equals(StormTopology that) {
        return equals((Object) that);
    }

    public boolean is_set_state_spouts() {
        return stateSpouts != null;
    }

    public boolean is_set_dependency_jars() {
        return dependencyJars != null;
    }

    public boolean is_set_dependency_artifacts() {
        return dependencyArtifacts != null;
    }

    public boolean is_set_jdk_version() {
        return jdkVersion != null;
    }

    public boolean is_set_component_to_shared_memory() {
        return componentToSharedMemory != null;
    }

    public boolean is_set_shared_memory() {
        return sharedMemory != null;
    }
}

package org.apache.storm.grouping;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.NodeInfo;
import org.apache.storm.networktopography.DNSToSwitchMapping;
import org.apache.storm.networktopography.DefaultRackDNSToSwitchMapping;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.utils.ObjectReader;

/**
 * Shuffle grouping that sends less to busy targets and prefers near ones.
 *
 * <p>Targets are grouped by how close they are to the emitting worker ({@link LocalityScope}):
 * the same worker, the same host, the same rack (by {@code storm.network.topography.plugin}), or
 * anywhere. Tuples go to the targets of the current scope, which widens by one step on a
 * {@link #refreshLoad} where the scope's mean load is above {@code topology.localityaware.higher.bound}
 * (default 0.8) and narrows by one step where the next narrower scope's mean load is below
 * {@code topology.localityaware.lower.bound} (default 0.2).
 *
 * <p>Within the scope each target has a weight from 0 to {@value #MAX_WEIGHT}, which each refresh
 * moves towards {@code 100 * (1 - load)}: down by up to 10, up by 1, so a busy target loses traffic
 * fast and regains it slowly. The weights fill a ring of {@link #getCapacity()} slots in
 * proportion, shuffled; {@link #chooseTasks} walks the ring (thread-safe). When every weight is
 * 0 the targets share the ring evenly.
 */
public class LoadAwareShuffleGrouping implements LoadAwareCustomStreamGrouping, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int MAX_WEIGHT = 100;
    private static final int MIN_CAPACITY = 1000;

    /** How close a target is to the emitting worker, narrowest first. */
    enum LocalityScope {
        WORKER_LOCAL, HOST_LOCAL, RACK_LOCAL, EVERYTHING;

        /** The next wider scope (EVERYTHING stays). */
        public static LocalityScope upgrade(LocalityScope s) {
            return s == EVERYTHING ? EVERYTHING : values()[s.ordinal() + 1];
        }

        /** The next narrower scope (WORKER_LOCAL stays). */
        public static LocalityScope downgrade(LocalityScope s) {
            return s == WORKER_LOCAL ? WORKER_LOCAL : values()[s.ordinal() - 1];
        }
    }

    // Package-private as in Storm: Storm's own test reads the ring (choices indexes rets).
    List<Integer>[] rets;
    volatile int[] choices;

    private int[] targets;
    private int[] weights;
    private int capacity;
    private Random random;
    private AtomicInteger current;
    private LocalityScope currentScope;
    private transient WorkerTopologyContext context;
    private transient Map<Integer, LocalityScope> scopeOfTarget;
    private transient Object localityFrom;
    private double higherBound;
    private double lowerBound;

    public LoadAwareShuffleGrouping() {
    }

    @Override
    @SuppressWarnings("unchecked")
    public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        if (targetTasks == null || targetTasks.isEmpty()) {
            throw new IllegalArgumentException("LoadAwareShuffleGrouping needs at least one target task, got " + targetTasks);
        }
        this.context = context;
        this.random = new Random();
        this.current = new AtomicInteger(0);
        int n = targetTasks.size();
        this.targets = new int[n];
        this.weights = new int[n];
        this.rets = (List<Integer>[]) new List<?>[n];
        for (int i = 0; i < n; i++) {
            targets[i] = targetTasks.get(i);
            weights[i] = MAX_WEIGHT;
            rets[i] = Collections.singletonList(targets[i]);
        }
        this.capacity = Math.max(MIN_CAPACITY, n);
        Map<String, Object> conf = context == null ? null : context.getConf();
        this.higherBound = bound(conf, Config.TOPOLOGY_LOCALITYAWARE_HIGHER_BOUND, 0.8);
        this.lowerBound = bound(conf, Config.TOPOLOGY_LOCALITYAWARE_LOWER_BOUND, 0.2);
        refreshLocality();
        this.currentScope = narrowestNonEmpty(LocalityScope.WORKER_LOCAL);
        updateRing(null);
    }

    private static double bound(Map<String, Object> conf, String key, double dflt) {
        Object v = conf == null ? null : conf.get(key);
        if (v == null) {
            return dflt;
        }
        if (!(v instanceof Number)) {
            throw new IllegalArgumentException(key + " must be a number between 0 and 1, but was " + v);
        }
        return ((Number) v).doubleValue();
    }

    @Override
    public List<Integer> chooseTasks(int taskId, List<Object> values) {
        int[] ring = choices;
        int i = Math.floorMod(current.getAndIncrement(), ring.length);
        return rets[ring[i]];
    }

    @Override
    public void refreshLoad(LoadMapping loadMapping) {
        refreshLocality();
        LocalityScope next = transition(loadMapping);
        if (next != currentScope) {
            currentScope = next;
            synchronized (this) {
                for (int i = 0; i < weights.length; i++) {
                    weights[i] = MAX_WEIGHT;
                }
            }
        }
        updateRing(loadMapping);
    }

    /** The number of slots of the ring: at least 1000, and at least one per target. */
    public int getCapacity() {
        return capacity;
    }

    /** The scope whose targets get the tuples now. */
    public LocalityScope getCurrentScope() {
        return currentScope;
    }

    private LocalityScope narrowestNonEmpty(LocalityScope from) {
        LocalityScope s = from;
        while (s != LocalityScope.EVERYTHING && indexesInScope(s).isEmpty()) {
            s = LocalityScope.upgrade(s);
        }
        return s;
    }

    private LocalityScope transition(LoadMapping load) {
        LocalityScope scope = currentScope;
        if (load == null) {
            return scope;
        }
        double here = meanLoad(indexesInScope(scope), load);
        if (scope != LocalityScope.EVERYTHING && here > higherBound) {
            return LocalityScope.upgrade(scope);
        }
        if (scope != LocalityScope.WORKER_LOCAL) {
            List<Integer> narrower = indexesInScope(LocalityScope.downgrade(scope));
            if (!narrower.isEmpty() && meanLoad(narrower, load) < lowerBound) {
                return LocalityScope.downgrade(scope);
            }
        }
        return scope;
    }

    private double meanLoad(List<Integer> indexes, LoadMapping load) {
        if (indexes.isEmpty()) {
            return 0.0;
        }
        double sum = 0;
        for (int i : indexes) {
            sum += load.get(targets[i]);
        }
        return sum / indexes.size();
    }

    /** The target positions within {@code scope} (a scope includes the narrower ones). */
    private List<Integer> indexesInScope(LocalityScope scope) {
        List<Integer> ret = new ArrayList<>();
        for (int i = 0; i < targets.length; i++) {
            LocalityScope s = scopeOfTarget.getOrDefault(targets[i], LocalityScope.EVERYTHING);
            if (s.ordinal() <= scope.ordinal()) {
                ret.add(i);
            }
        }
        return ret;
    }

    private synchronized void updateRing(LoadMapping load) {
        List<Integer> inScope = indexesInScope(currentScope);
        if (inScope.isEmpty()) {
            inScope = indexesInScope(LocalityScope.EVERYTHING);
        }
        long total = 0;
        for (int i : inScope) {
            if (load != null) {
                double l = Math.min(1.0, Math.max(0.0, load.get(targets[i])));
                int target = (int) Math.round(MAX_WEIGHT * (1.0 - l));
                weights[i] = weights[i] > target ? Math.max(target, weights[i] - 10) : Math.min(target, weights[i] + 1);
            }
            total += weights[i];
        }
        int[] slots = new int[inScope.size()];
        int filled = 0;
        if (total == 0) {
            for (int k = 0; k < slots.length; k++) {
                slots[k] = capacity / slots.length + (k < capacity % slots.length ? 1 : 0);
            }
            filled = capacity;
        } else {
            double[] remainders = new double[slots.length];
            for (int k = 0; k < slots.length; k++) {
                double exact = (double) weights[inScope.get(k)] * capacity / total;
                slots[k] = (int) Math.floor(exact);
                remainders[k] = exact - slots[k];
                filled += slots[k];
            }
            while (filled < capacity) {
                int best = 0;
                for (int k = 1; k < slots.length; k++) {
                    if (remainders[k] > remainders[best]) {
                        best = k;
                    }
                }
                slots[best]++;
                remainders[best] = -1;
                filled++;
            }
        }
        int[] ring = new int[capacity];
        int pos = 0;
        for (int k = 0; k < slots.length; k++) {
            for (int j = 0; j < slots[k]; j++) {
                ring[pos++] = inScope.get(k);
            }
        }
        for (int i = ring.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = ring[i];
            ring[i] = ring[j];
            ring[j] = t;
        }
        choices = ring;
    }

    /** Places every target in a scope from the context's task-to-worker map (re-read when it changes). */
    private void refreshLocality() {
        AtomicReference<? extends Map<Integer, ?>> ref = context == null ? null : context.getTaskToNodePort();
        Map<Integer, ?> taskToNodePort = ref == null ? null : ref.get();
        if (scopeOfTarget != null && taskToNodePort == localityFrom) {
            return;
        }
        localityFrom = taskToNodePort;
        Map<Integer, LocalityScope> scopes = new HashMap<>();
        if (taskToNodePort != null && !taskToNodePort.isEmpty()) {
            String sourceNode = context.getAssignmentId();
            Integer sourcePort = context.getThisWorkerPort();
            AtomicReference<Map<String, String>> hostsRef = context.getNodeToHost();
            Map<String, String> nodeToHost = hostsRef == null || hostsRef.get() == null ? new HashMap<>() : hostsRef.get();
            String sourceHost = sourceNode == null ? null : nodeToHost.get(sourceNode);
            Map<String, String> hostToRack = hostToRack(nodeToHost);
            String sourceRack = sourceHost == null ? null : hostToRack.get(sourceHost);
            for (int target : targets) {
                Object info = taskToNodePort.get(target);
                LocalityScope s = LocalityScope.EVERYTHING;
                if (info instanceof NodeInfo) {
                    NodeInfo ni = (NodeInfo) info;
                    String host = ni.get_node() == null ? null : nodeToHost.get(ni.get_node());
                    if (sourceNode != null && sourceNode.equals(ni.get_node()) && sourcePort != null
                            && ni.get_port() != null && ni.get_port().contains(sourcePort.longValue())) {
                        s = LocalityScope.WORKER_LOCAL;
                    } else if (sourceHost != null && sourceHost.equals(host)) {
                        s = LocalityScope.HOST_LOCAL;
                    } else if (sourceRack != null && host != null && sourceRack.equals(hostToRack.get(host))) {
                        s = LocalityScope.RACK_LOCAL;
                    }
                }
                scopes.put(target, s);
            }
        }
        scopeOfTarget = scopes;
    }

    private Map<String, String> hostToRack(Map<String, String> nodeToHost) {
        Set<String> hosts = new HashSet<>(nodeToHost.values());
        hosts.remove(null);
        if (hosts.isEmpty()) {
            return new HashMap<>();
        }
        Object plugin = context.getConf() == null ? null : context.getConf().get(Config.STORM_NETWORK_TOPOGRAPHY_PLUGIN);
        DNSToSwitchMapping mapping;
        if (plugin == null) {
            mapping = new DefaultRackDNSToSwitchMapping();
        } else {
            String name = ObjectReader.getString(plugin);
            try {
                // The user's class comes from the topology's class loader, the thread's context one.
                ClassLoader cl = Thread.currentThread().getContextClassLoader();
                mapping = (DNSToSwitchMapping) Class.forName(name, true,
                        cl != null ? cl : LoadAwareShuffleGrouping.class.getClassLoader()).getConstructor().newInstance();
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalArgumentException(Config.STORM_NETWORK_TOPOGRAPHY_PLUGIN + " names " + name
                        + ", which is not a DNSToSwitchMapping with a public no-argument constructor", e);
            }
        }
        Map<String, String> racks = mapping.resolve(new ArrayList<>(hosts));
        return racks == null ? new HashMap<>() : racks;
    }
}

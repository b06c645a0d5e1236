package org.apache.storm;

import java.util.List;
import java.util.Map;
import org.apache.storm.cluster.IStormClusterState;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.Credentials;
import org.apache.storm.generated.GetInfoOptions;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.RebalanceOptions;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.SubmitOptions;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.thrift.TException;

/**
 * Storm's in-process cluster interface (storm-client 2.x). Egret's {@link LocalCluster}
 * implements it on the real local cluster that {@code egret jar|local} runs.
 */
public interface ILocalCluster extends AutoCloseable {
    ILocalTopology submitTopology(String topologyName, Map<String, Object> conf, StormTopology topology)
            throws TException;

    ILocalTopology submitTopologyWithOpts(String topologyName, Map<String, Object> conf, StormTopology topology,
            SubmitOptions submitOpts) throws TException;

    void uploadNewCredentials(String topologyName, Credentials creds) throws TException;

    void killTopology(String topologyName) throws TException;

    void killTopologyWithOpts(String name, KillOptions options) throws TException;

    void activate(String topologyName) throws TException;

    void deactivate(String topologyName) throws TException;

    void rebalance(String name, RebalanceOptions options) throws TException;

    void shutdown();

    String getTopologyConf(String id) throws TException;

    StormTopology getTopology(String id) throws TException;

    ClusterSummary getClusterInfo() throws TException;

    List<TopologySummary> getTopologySummaries() throws TException;

    TopologySummary getTopologySummaryByName(String name) throws TException;

    TopologySummary getTopologySummary(String id) throws TException;

    TopologyInfo getTopologyInfo(String id) throws TException;

    TopologyInfo getTopologyInfoByName(String name) throws TException;

    TopologyInfo getTopologyInfoWithOpts(String id, GetInfoOptions options) throws TException;

    TopologyInfo getTopologyInfoByNameWithOpts(String name, GetInfoOptions options) throws TException;

    IStormClusterState getClusterState();

    void advanceClusterTime(int secs) throws InterruptedException;

    void advanceClusterTime(int secs, int step) throws InterruptedException;

    String getTrackedId();

    /** A topology running on a local cluster; closing it kills the topology. */
    interface ILocalTopology extends AutoCloseable {
    }
}

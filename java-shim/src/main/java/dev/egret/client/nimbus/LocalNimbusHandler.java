package dev.egret.client.nimbus;

import org.apache.storm.generated.*;
import org.apache.storm.generated.IllegalStateException;
import org.apache.storm.thrift.TApplicationException;
import org.apache.storm.thrift.TBase;
import org.apache.storm.thrift.TException;

/**
 * The server side of Egret's Nimbus: Storm's {@link Nimbus.Iface} answered by
 * {@link LocalNimbus} (the local cluster's topology masters), for a {@link Nimbus.Processor}
 * behind an {@link InJvmTransport}. So a {@code Nimbus.Client} call is encoded, processed and
 * decoded by Thrift as with a real Nimbus.
 *
 * <p>Errors keep their message across the Thrift boundary: Storm's declared exceptions
 * ({@code NotAliveException}, ...) travel as themselves; any other failure, and calls Egret
 * does not serve, travel as a {@link TApplicationException} with the message (Thrift would
 * otherwise replace an undeclared exception by a bare "Internal error processing").
 */
final class LocalNimbusHandler implements Nimbus.Iface {
    /** The calls Egret serves; the others fail with {@link TApplicationException#UNKNOWN_METHOD}. */
    static final String SERVED = "getClusterInfo, getTopologySummaries, getTopologySummary(ByName), "
            + "getTopologyInfo(ByName)(WithOpts), killTopology(WithOpts), activate, deactivate, debug, "
            + "setLogConfig, getLogConfig, isTopologyNameAllowed, getLeader";

    private final LocalNimbus nimbus;

    LocalNimbusHandler(LocalNimbus nimbus) {
        this.nimbus = nimbus;
    }

    private static TApplicationException unsupported(String method) {
        return new TApplicationException(TApplicationException.UNKNOWN_METHOD,
                "Nimbus." + method + " is not supported by Egret (served: " + SERVED + ")");
    }

    /**
     * The exception to throw for {@code e}: Thrift's declared exception structs (which the
     * processor matches against the method's throws clause) as they are, anything else as an
     * application exception that carries the message.
     */
    private static TException undeclared(TException e) {
        if (e instanceof TBase<?, ?> || e instanceof TApplicationException) {
            return e;
        }
        return new TApplicationException(TApplicationException.INTERNAL_ERROR, e.getMessage());
    }

    @Override
    public void debug(String name, String component, boolean enable, double samplingPercentage) throws NotAliveException, AuthorizationException, TException {
        try {
            nimbus.debug(name, component, enable, samplingPercentage);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public boolean isRemoteBlobExists(String blobKey) throws AuthorizationException, TException {
        throw unsupported("isRemoteBlobExists");
    }

    @Override
    public void processWorkerMetrics(WorkerMetrics metrics) throws TException {
        throw unsupported("processWorkerMetrics");
    }

    @Override
    public void sendSupervisorWorkerHeartbeat(SupervisorWorkerHeartbeat heatbeat) throws AuthorizationException, NotAliveException, TException {
        throw unsupported("sendSupervisorWorkerHeartbeat");
    }

    @Override
    public void sendSupervisorWorkerHeartbeats(SupervisorWorkerHeartbeats heartbeats) throws AuthorizationException, TException {
        throw unsupported("sendSupervisorWorkerHeartbeats");
    }

    @Override
    public SupervisorAssignments getSupervisorAssignments(String node) throws AuthorizationException, TException {
        throw unsupported("getSupervisorAssignments");
    }

    @Override
    public java.util.List<OwnerResourceSummary> getOwnerResourceSummaries(String owner) throws AuthorizationException, TException {
        throw unsupported("getOwnerResourceSummaries");
    }

    @Override
    public TopologyHistoryInfo getTopologyHistory(String user) throws AuthorizationException, TException {
        throw unsupported("getTopologyHistory");
    }

    @Override
    public StormTopology getUserTopology(String id) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getUserTopology");
    }

    @Override
    public StormTopology getTopology(String id) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getTopology");
    }

    @Override
    public String getTopologyConf(String id) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getTopologyConf");
    }

    @Override
    public ComponentPageInfo getComponentPageInfo(String topology_id, String component_id, String window, boolean is_include_sys) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getComponentPageInfo");
    }

    @Override
    public SupervisorPageInfo getSupervisorPageInfo(String id, String host, boolean is_include_sys) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getSupervisorPageInfo");
    }

    @Override
    public TopologyPageInfo getTopologyPageInfo(String id, String window, boolean is_include_sys) throws NotAliveException, AuthorizationException, TException {
        throw unsupported("getTopologyPageInfo");
    }

    @Override
    public TopologyInfo getTopologyInfoWithOpts(String id, GetInfoOptions options) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologyInfoWithOpts(id, options);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public TopologyInfo getTopologyInfoByNameWithOpts(String name, GetInfoOptions options) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologyInfoByNameWithOpts(name, options);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public TopologyInfo getTopologyInfo(String id) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologyInfo(id);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public TopologyInfo getTopologyInfoByName(String name) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologyInfoByName(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public boolean isTopologyNameAllowed(String name) throws AuthorizationException, TException {
        try {
            return nimbus.isTopologyNameAllowed(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public NimbusSummary getLeader() throws AuthorizationException, TException {
        try {
            return nimbus.getLeader();
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public TopologySummary getTopologySummary(String id) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologySummary(id);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public TopologySummary getTopologySummaryByName(String name) throws NotAliveException, AuthorizationException, TException {
        try {
            return nimbus.getTopologySummaryByName(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public java.util.List<TopologySummary> getTopologySummaries() throws AuthorizationException, TException {
        try {
            return nimbus.getTopologySummaries();
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public ClusterSummary getClusterInfo() throws AuthorizationException, TException {
        try {
            return nimbus.getClusterInfo();
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public String getNimbusConf() throws AuthorizationException, TException {
        throw unsupported("getNimbusConf");
    }

    @Override
    public java.nio.ByteBuffer downloadChunk(String id) throws AuthorizationException, TException {
        throw unsupported("downloadChunk");
    }

    @Override
    public void finishFileUpload(String location) throws AuthorizationException, TException {
        throw unsupported("finishFileUpload");
    }

    @Override
    public void uploadChunk(String location, java.nio.ByteBuffer chunk) throws AuthorizationException, TException {
        throw unsupported("uploadChunk");
    }

    @Override
    public String beginFileUpload() throws AuthorizationException, TException {
        throw unsupported("beginFileUpload");
    }

    @Override
    public void createStateInZookeeper(String key) throws TException {
        throw unsupported("createStateInZookeeper");
    }

    @Override
    public int updateBlobReplication(String key, int replication) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("updateBlobReplication");
    }

    @Override
    public int getBlobReplication(String key) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("getBlobReplication");
    }

    @Override
    public ListBlobsResult listBlobs(String session) throws TException {
        throw unsupported("listBlobs");
    }

    @Override
    public void deleteBlob(String key) throws AuthorizationException, KeyNotFoundException, IllegalStateException, TException {
        throw unsupported("deleteBlob");
    }

    @Override
    public java.nio.ByteBuffer downloadBlobChunk(String session) throws AuthorizationException, TException {
        throw unsupported("downloadBlobChunk");
    }

    @Override
    public BeginDownloadResult beginBlobDownload(String key) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("beginBlobDownload");
    }

    @Override
    public void setBlobMeta(String key, SettableBlobMeta meta) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("setBlobMeta");
    }

    @Override
    public ReadableBlobMeta getBlobMeta(String key) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("getBlobMeta");
    }

    @Override
    public void cancelBlobUpload(String session) throws AuthorizationException, TException {
        throw unsupported("cancelBlobUpload");
    }

    @Override
    public void finishBlobUpload(String session) throws AuthorizationException, TException {
        throw unsupported("finishBlobUpload");
    }

    @Override
    public void uploadBlobChunk(String session, java.nio.ByteBuffer chunk) throws AuthorizationException, TException {
        throw unsupported("uploadBlobChunk");
    }

    @Override
    public String beginUpdateBlob(String key) throws AuthorizationException, KeyNotFoundException, TException {
        throw unsupported("beginUpdateBlob");
    }

    @Override
    public String beginCreateBlob(String key, SettableBlobMeta meta) throws AuthorizationException, KeyAlreadyExistsException, TException {
        throw unsupported("beginCreateBlob");
    }

    @Override
    public void uploadNewCredentials(String name, Credentials creds) throws NotAliveException, InvalidTopologyException, AuthorizationException, TException {
        throw unsupported("uploadNewCredentials");
    }

    @Override
    public java.util.List<ProfileRequest> getComponentPendingProfileActions(String id, String component_id, ProfileAction action) throws TException {
        throw unsupported("getComponentPendingProfileActions");
    }

    @Override
    public void setWorkerProfiler(String id, ProfileRequest profileRequest) throws TException {
        throw unsupported("setWorkerProfiler");
    }

    @Override
    public LogConfig getLogConfig(String id) throws TException {
        try {
            return nimbus.getLogConfig(id);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void setLogConfig(String id, LogConfig config) throws TException {
        try {
            nimbus.setLogConfig(id, config);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void rebalance(String name, RebalanceOptions options) throws NotAliveException, InvalidTopologyException, AuthorizationException, TException {
        throw unsupported("rebalance");
    }

    @Override
    public void deactivate(String name) throws NotAliveException, AuthorizationException, TException {
        try {
            nimbus.deactivate(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void activate(String name) throws NotAliveException, AuthorizationException, TException {
        try {
            nimbus.activate(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void killTopologyWithOpts(String name, KillOptions options) throws NotAliveException, AuthorizationException, TException {
        try {
            nimbus.killTopologyWithOpts(name, options);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void killTopology(String name) throws NotAliveException, AuthorizationException, TException {
        try {
            nimbus.killTopology(name);
        } catch (TException e) {
            throw undeclared(e);
        }
    }

    @Override
    public void submitTopologyWithOpts(String name, String uploadedJarLocation, String jsonConf, StormTopology topology, SubmitOptions options) throws AlreadyAliveException, InvalidTopologyException, AuthorizationException, TException {
        throw unsupported("submitTopologyWithOpts");
    }

    @Override
    public void submitTopology(String name, String uploadedJarLocation, String jsonConf, StormTopology topology) throws AlreadyAliveException, InvalidTopologyException, AuthorizationException, TException {
        throw unsupported("submitTopology");
    }
}

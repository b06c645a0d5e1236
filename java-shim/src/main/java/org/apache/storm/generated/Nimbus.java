package org.apache.storm.generated;

import dev.egret.client.nimbus.LocalNimbus;
import org.apache.storm.thrift.TException;
import org.apache.storm.thrift.TServiceClient;

/**
 * Storm's Nimbus service as jars see it: {@link Iface} with every method of Storm's, and
 * {@link Client}, which Egret answers from the local cluster's topology masters (one per
 * topology) instead of a Thrift server. Methods Egret does not serve throw a
 * {@link TException} naming the method; they exist so that jars calling them link.
 */
public class Nimbus {
    public Nimbus() {
    }

    /** Every Nimbus call, with Storm's signatures. */
    public interface Iface {
        void submitTopology(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, org.apache.storm.generated.StormTopology arg3) throws TException;

        void submitTopologyWithOpts(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, org.apache.storm.generated.StormTopology arg3, org.apache.storm.generated.SubmitOptions arg4) throws TException;

        void killTopology(java.lang.String arg0) throws TException;

        void killTopologyWithOpts(java.lang.String arg0, org.apache.storm.generated.KillOptions arg1) throws TException;

        void activate(java.lang.String arg0) throws TException;

        void deactivate(java.lang.String arg0) throws TException;

        void rebalance(java.lang.String arg0, org.apache.storm.generated.RebalanceOptions arg1) throws TException;

        void setLogConfig(java.lang.String arg0, org.apache.storm.generated.LogConfig arg1) throws TException;

        org.apache.storm.generated.LogConfig getLogConfig(java.lang.String arg0) throws TException;

        void debug(java.lang.String arg0, java.lang.String arg1, boolean arg2, double arg3) throws TException;

        void setWorkerProfiler(java.lang.String arg0, org.apache.storm.generated.ProfileRequest arg1) throws TException;

        java.util.List<org.apache.storm.generated.ProfileRequest> getComponentPendingProfileActions(java.lang.String arg0, java.lang.String arg1, org.apache.storm.generated.ProfileAction arg2) throws TException;

        void uploadNewCredentials(java.lang.String arg0, org.apache.storm.generated.Credentials arg1) throws TException;

        java.lang.String beginCreateBlob(java.lang.String arg0, org.apache.storm.generated.SettableBlobMeta arg1) throws TException;

        java.lang.String beginUpdateBlob(java.lang.String arg0) throws TException;

        void uploadBlobChunk(java.lang.String arg0, java.nio.ByteBuffer arg1) throws TException;

        void finishBlobUpload(java.lang.String arg0) throws TException;

        void cancelBlobUpload(java.lang.String arg0) throws TException;

        org.apache.storm.generated.ReadableBlobMeta getBlobMeta(java.lang.String arg0) throws TException;

        void setBlobMeta(java.lang.String arg0, org.apache.storm.generated.SettableBlobMeta arg1) throws TException;

        org.apache.storm.generated.BeginDownloadResult beginBlobDownload(java.lang.String arg0) throws TException;

        java.nio.ByteBuffer downloadBlobChunk(java.lang.String arg0) throws TException;

        void deleteBlob(java.lang.String arg0) throws TException;

        org.apache.storm.generated.ListBlobsResult listBlobs(java.lang.String arg0) throws TException;

        int getBlobReplication(java.lang.String arg0) throws TException;

        int updateBlobReplication(java.lang.String arg0, int arg1) throws TException;

        void createStateInZookeeper(java.lang.String arg0) throws TException;

        java.lang.String beginFileUpload() throws TException;

        void uploadChunk(java.lang.String arg0, java.nio.ByteBuffer arg1) throws TException;

        void finishFileUpload(java.lang.String arg0) throws TException;

        java.nio.ByteBuffer downloadChunk(java.lang.String arg0) throws TException;

        java.lang.String getNimbusConf() throws TException;

        org.apache.storm.generated.ClusterSummary getClusterInfo() throws TException;

        java.util.List<org.apache.storm.generated.TopologySummary> getTopologySummaries() throws TException;

        org.apache.storm.generated.TopologySummary getTopologySummaryByName(java.lang.String arg0) throws TException;

        org.apache.storm.generated.TopologySummary getTopologySummary(java.lang.String arg0) throws TException;

        org.apache.storm.generated.NimbusSummary getLeader() throws TException;

        boolean isTopologyNameAllowed(java.lang.String arg0) throws TException;

        org.apache.storm.generated.TopologyInfo getTopologyInfoByName(java.lang.String arg0) throws TException;

        org.apache.storm.generated.TopologyInfo getTopologyInfo(java.lang.String arg0) throws TException;

        org.apache.storm.generated.TopologyInfo getTopologyInfoByNameWithOpts(java.lang.String arg0, org.apache.storm.generated.GetInfoOptions arg1) throws TException;

        org.apache.storm.generated.TopologyInfo getTopologyInfoWithOpts(java.lang.String arg0, org.apache.storm.generated.GetInfoOptions arg1) throws TException;

        org.apache.storm.generated.TopologyPageInfo getTopologyPageInfo(java.lang.String arg0, java.lang.String arg1, boolean arg2) throws TException;

        org.apache.storm.generated.SupervisorPageInfo getSupervisorPageInfo(java.lang.String arg0, java.lang.String arg1, boolean arg2) throws TException;

        org.apache.storm.generated.ComponentPageInfo getComponentPageInfo(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, boolean arg3) throws TException;

        java.lang.String getTopologyConf(java.lang.String arg0) throws TException;

        org.apache.storm.generated.StormTopology getTopology(java.lang.String arg0) throws TException;

        org.apache.storm.generated.StormTopology getUserTopology(java.lang.String arg0) throws TException;

        org.apache.storm.generated.TopologyHistoryInfo getTopologyHistory(java.lang.String arg0) throws TException;

        java.util.List<org.apache.storm.generated.OwnerResourceSummary> getOwnerResourceSummaries(java.lang.String arg0) throws TException;

        org.apache.storm.generated.SupervisorAssignments getSupervisorAssignments(java.lang.String arg0) throws TException;

        void sendSupervisorWorkerHeartbeats(org.apache.storm.generated.SupervisorWorkerHeartbeats arg0) throws TException;

        void sendSupervisorWorkerHeartbeat(org.apache.storm.generated.SupervisorWorkerHeartbeat arg0) throws TException;

        void processWorkerMetrics(org.apache.storm.generated.WorkerMetrics arg0) throws TException;

        boolean isRemoteBlobExists(java.lang.String arg0) throws TException;

    }

    /**
     * The client {@code NimbusClient.getClient()} returns. Each call is one request to the
     * topology master concerned (see {@link LocalNimbus}); the client holds no connection.
     */
    public static class Client extends TServiceClient implements Iface {
        private final LocalNimbus nimbus;

        /** A client of the local cluster described by {@code nimbus}. */
        public Client(LocalNimbus nimbus) {
            this.nimbus = nimbus;
        }

        private static TException unsupported(String method) {
            return new TException("Nimbus." + method + " is not supported by Egret (served: getClusterInfo, "
                    + "getTopologySummaries, getTopologySummary(ByName), getTopologyInfo(ByName)(WithOpts), "
                    + "killTopology(WithOpts), activate, deactivate, isTopologyNameAllowed, getLeader)");
        }

        @Override
        public void submitTopology(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, org.apache.storm.generated.StormTopology arg3) throws TException {
            throw unsupported("submitTopology");
        }

        @Override
        public void submitTopologyWithOpts(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, org.apache.storm.generated.StormTopology arg3, org.apache.storm.generated.SubmitOptions arg4) throws TException {
            throw unsupported("submitTopologyWithOpts");
        }

        @Override
        public void killTopology(java.lang.String arg0) throws TException {
            nimbus.killTopology(arg0);
        }

        @Override
        public void killTopologyWithOpts(java.lang.String arg0, org.apache.storm.generated.KillOptions arg1) throws TException {
            nimbus.killTopologyWithOpts(arg0, arg1);
        }

        @Override
        public void activate(java.lang.String arg0) throws TException {
            nimbus.activate(arg0);
        }

        @Override
        public void deactivate(java.lang.String arg0) throws TException {
            nimbus.deactivate(arg0);
        }

        @Override
        public void rebalance(java.lang.String arg0, org.apache.storm.generated.RebalanceOptions arg1) throws TException {
            throw unsupported("rebalance");
        }

        @Override
        public void setLogConfig(java.lang.String arg0, org.apache.storm.generated.LogConfig arg1) throws TException {
            throw unsupported("setLogConfig");
        }

        @Override
        public org.apache.storm.generated.LogConfig getLogConfig(java.lang.String arg0) throws TException {
            throw unsupported("getLogConfig");
        }

        @Override
        public void debug(java.lang.String arg0, java.lang.String arg1, boolean arg2, double arg3) throws TException {
            throw unsupported("debug");
        }

        @Override
        public void setWorkerProfiler(java.lang.String arg0, org.apache.storm.generated.ProfileRequest arg1) throws TException {
            throw unsupported("setWorkerProfiler");
        }

        @Override
        public java.util.List<org.apache.storm.generated.ProfileRequest> getComponentPendingProfileActions(java.lang.String arg0, java.lang.String arg1, org.apache.storm.generated.ProfileAction arg2) throws TException {
            throw unsupported("getComponentPendingProfileActions");
        }

        @Override
        public void uploadNewCredentials(java.lang.String arg0, org.apache.storm.generated.Credentials arg1) throws TException {
            throw unsupported("uploadNewCredentials");
        }

        @Override
        public java.lang.String beginCreateBlob(java.lang.String arg0, org.apache.storm.generated.SettableBlobMeta arg1) throws TException {
            throw unsupported("beginCreateBlob");
        }

        @Override
        public java.lang.String beginUpdateBlob(java.lang.String arg0) throws TException {
            throw unsupported("beginUpdateBlob");
        }

        @Override
        public void uploadBlobChunk(java.lang.String arg0, java.nio.ByteBuffer arg1) throws TException {
            throw unsupported("uploadBlobChunk");
        }

        @Override
        public void finishBlobUpload(java.lang.String arg0) throws TException {
            throw unsupported("finishBlobUpload");
        }

        @Override
        public void cancelBlobUpload(java.lang.String arg0) throws TException {
            throw unsupported("cancelBlobUpload");
        }

        @Override
        public org.apache.storm.generated.ReadableBlobMeta getBlobMeta(java.lang.String arg0) throws TException {
            throw unsupported("getBlobMeta");
        }

        @Override
        public void setBlobMeta(java.lang.String arg0, org.apache.storm.generated.SettableBlobMeta arg1) throws TException {
            throw unsupported("setBlobMeta");
        }

        @Override
        public org.apache.storm.generated.BeginDownloadResult beginBlobDownload(java.lang.String arg0) throws TException {
            throw unsupported("beginBlobDownload");
        }

        @Override
        public java.nio.ByteBuffer downloadBlobChunk(java.lang.String arg0) throws TException {
            throw unsupported("downloadBlobChunk");
        }

        @Override
        public void deleteBlob(java.lang.String arg0) throws TException {
            throw unsupported("deleteBlob");
        }

        @Override
        public org.apache.storm.generated.ListBlobsResult listBlobs(java.lang.String arg0) throws TException {
            throw unsupported("listBlobs");
        }

        @Override
        public int getBlobReplication(java.lang.String arg0) throws TException {
            throw unsupported("getBlobReplication");
        }

        @Override
        public int updateBlobReplication(java.lang.String arg0, int arg1) throws TException {
            throw unsupported("updateBlobReplication");
        }

        @Override
        public void createStateInZookeeper(java.lang.String arg0) throws TException {
            throw unsupported("createStateInZookeeper");
        }

        @Override
        public java.lang.String beginFileUpload() throws TException {
            throw unsupported("beginFileUpload");
        }

        @Override
        public void uploadChunk(java.lang.String arg0, java.nio.ByteBuffer arg1) throws TException {
            throw unsupported("uploadChunk");
        }

        @Override
        public void finishFileUpload(java.lang.String arg0) throws TException {
            throw unsupported("finishFileUpload");
        }

        @Override
        public java.nio.ByteBuffer downloadChunk(java.lang.String arg0) throws TException {
            throw unsupported("downloadChunk");
        }

        @Override
        public java.lang.String getNimbusConf() throws TException {
            throw unsupported("getNimbusConf");
        }

        @Override
        public org.apache.storm.generated.ClusterSummary getClusterInfo() throws TException {
            return nimbus.getClusterInfo();
        }

        @Override
        public java.util.List<org.apache.storm.generated.TopologySummary> getTopologySummaries() throws TException {
            return nimbus.getTopologySummaries();
        }

        @Override
        public org.apache.storm.generated.TopologySummary getTopologySummaryByName(java.lang.String arg0) throws TException {
            return nimbus.getTopologySummaryByName(arg0);
        }

        @Override
        public org.apache.storm.generated.TopologySummary getTopologySummary(java.lang.String arg0) throws TException {
            return nimbus.getTopologySummary(arg0);
        }

        @Override
        public org.apache.storm.generated.NimbusSummary getLeader() throws TException {
            return nimbus.getLeader();
        }

        @Override
        public boolean isTopologyNameAllowed(java.lang.String arg0) throws TException {
            return nimbus.isTopologyNameAllowed(arg0);
        }

        @Override
        public org.apache.storm.generated.TopologyInfo getTopologyInfoByName(java.lang.String arg0) throws TException {
            return nimbus.getTopologyInfoByName(arg0);
        }

        @Override
        public org.apache.storm.generated.TopologyInfo getTopologyInfo(java.lang.String arg0) throws TException {
            return nimbus.getTopologyInfo(arg0);
        }

        @Override
        public org.apache.storm.generated.TopologyInfo getTopologyInfoByNameWithOpts(java.lang.String arg0, org.apache.storm.generated.GetInfoOptions arg1) throws TException {
            return nimbus.getTopologyInfoByNameWithOpts(arg0, arg1);
        }

        @Override
        public org.apache.storm.generated.TopologyInfo getTopologyInfoWithOpts(java.lang.String arg0, org.apache.storm.generated.GetInfoOptions arg1) throws TException {
            return nimbus.getTopologyInfoWithOpts(arg0, arg1);
        }

        @Override
        public org.apache.storm.generated.TopologyPageInfo getTopologyPageInfo(java.lang.String arg0, java.lang.String arg1, boolean arg2) throws TException {
            throw unsupported("getTopologyPageInfo");
        }

        @Override
        public org.apache.storm.generated.SupervisorPageInfo getSupervisorPageInfo(java.lang.String arg0, java.lang.String arg1, boolean arg2) throws TException {
            throw unsupported("getSupervisorPageInfo");
        }

        @Override
        public org.apache.storm.generated.ComponentPageInfo getComponentPageInfo(java.lang.String arg0, java.lang.String arg1, java.lang.String arg2, boolean arg3) throws TException {
            throw unsupported("getComponentPageInfo");
        }

        @Override
        public java.lang.String getTopologyConf(java.lang.String arg0) throws TException {
            throw unsupported("getTopologyConf");
        }

        @Override
        public org.apache.storm.generated.StormTopology getTopology(java.lang.String arg0) throws TException {
            throw unsupported("getTopology");
        }

        @Override
        public org.apache.storm.generated.StormTopology getUserTopology(java.lang.String arg0) throws TException {
            throw unsupported("getUserTopology");
        }

        @Override
        public org.apache.storm.generated.TopologyHistoryInfo getTopologyHistory(java.lang.String arg0) throws TException {
            throw unsupported("getTopologyHistory");
        }

        @Override
        public java.util.List<org.apache.storm.generated.OwnerResourceSummary> getOwnerResourceSummaries(java.lang.String arg0) throws TException {
            throw unsupported("getOwnerResourceSummaries");
        }

        @Override
        public org.apache.storm.generated.SupervisorAssignments getSupervisorAssignments(java.lang.String arg0) throws TException {
            throw unsupported("getSupervisorAssignments");
        }

        @Override
        public void sendSupervisorWorkerHeartbeats(org.apache.storm.generated.SupervisorWorkerHeartbeats arg0) throws TException {
            throw unsupported("sendSupervisorWorkerHeartbeats");
        }

        @Override
        public void sendSupervisorWorkerHeartbeat(org.apache.storm.generated.SupervisorWorkerHeartbeat arg0) throws TException {
            throw unsupported("sendSupervisorWorkerHeartbeat");
        }

        @Override
        public void processWorkerMetrics(org.apache.storm.generated.WorkerMetrics arg0) throws TException {
            throw unsupported("processWorkerMetrics");
        }

        @Override
        public boolean isRemoteBlobExists(java.lang.String arg0) throws TException {
            throw unsupported("isRemoteBlobExists");
        }

    }
}

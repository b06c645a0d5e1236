package org.apache.storm.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.storm.generated.Assignment;
import org.apache.storm.generated.ClusterWorkerHeartbeat;
import org.apache.storm.generated.Credentials;
import org.apache.storm.generated.ErrorInfo;
import org.apache.storm.generated.ExecutorInfo;
import org.apache.storm.generated.LogConfig;
import org.apache.storm.generated.NimbusSummary;
import org.apache.storm.generated.NodeInfo;
import org.apache.storm.generated.PrivateWorkerKey;
import org.apache.storm.generated.ProfileRequest;
import org.apache.storm.generated.StormBase;
import org.apache.storm.generated.SupervisorInfo;
import org.apache.storm.generated.WorkerTokenServiceType;
import org.apache.storm.nimbus.NimbusInfo;

/**
 * Storm's view of the cluster state (assignments, heartbeats, errors, credentials, ... kept in
 * ZooKeeper or Pacemaker), with Storm's members so that code compiled against it links
 * ({@code ILocalCluster.getClusterState()} returns it). Egret keeps no such state: no Egret
 * object implements this interface, and {@code LocalCluster.getClusterState()} refuses.
 * Callbacks, when given, run when the watched value changes.
 */
public interface IStormClusterState {
    List<String> assignments(Runnable callback);

    Assignment assignmentInfo(String arg0, Runnable callback);

    Assignment remoteAssignmentInfo(String arg0, Runnable callback);

    Map<String, Assignment> assignmentsInfo();

    void syncRemoteAssignments(Map<String, byte[]> arg0);

    boolean isAssignmentsBackendSynchronized();

    boolean isPacemakerStateStore();

    void setAssignmentsBackendSynchronized();

    VersionedData<Assignment> assignmentInfoWithVersion(String arg0, Runnable callback);

    Integer assignmentVersion(String arg0, Runnable callback) throws Exception;

    List<String> blobstoreInfo(String arg0);

    List<NimbusSummary> nimbuses();

    void addNimbusHost(String arg0, NimbusSummary arg1);

    List<String> activeStorms();

    StormBase stormBase(String arg0, Runnable callback);

    String stormId(String arg0);

    void syncRemoteIds(Map<String, String> arg0);

    ClusterWorkerHeartbeat getWorkerHeartbeat(String arg0, String arg1, Long arg2);

    List<ProfileRequest> getWorkerProfileRequests(String arg0, NodeInfo arg1);

    List<ProfileRequest> getTopologyProfileRequests(String arg0);

    void setWorkerProfileRequest(String arg0, ProfileRequest arg1);

    void deleteTopologyProfileRequests(String arg0, ProfileRequest arg1);

    Map<ExecutorInfo, ExecutorBeat> executorBeats(String arg0, Map<List<Long>, NodeInfo> arg1);

    List<String> supervisors(Runnable callback);

    SupervisorInfo supervisorInfo(String arg0);

    void setupHeatbeats(String arg0, Map<String, Object> arg1);

    void teardownHeartbeats(String arg0);

    void teardownTopologyErrors(String arg0);

    List<String> heartbeatStorms();

    List<String> errorTopologies();

    List<String> backpressureTopologies();

    NimbusInfo getLeader(Runnable callback);

    void setTopologyLogConfig(String arg0, LogConfig arg1, Map<String, Object> arg2);

    LogConfig topologyLogConfig(String arg0, Runnable callback);

    void workerHeartbeat(String arg0, String arg1, Long arg2, ClusterWorkerHeartbeat arg3);

    void removeWorkerHeartbeat(String arg0, String arg1, Long arg2);

    void supervisorHeartbeat(String arg0, SupervisorInfo arg1);

    boolean topologyBackpressure(String arg0, long arg1, Runnable callback);

    void setupBackpressure(String arg0, Map<String, Object> arg1);

    void removeBackpressure(String arg0);

    void removeWorkerBackpressure(String arg0, String arg1, Long arg2);

    void activateStorm(String arg0, StormBase arg1, Map<String, Object> arg2);

    void updateStorm(String arg0, StormBase arg1);

    void removeStormBase(String arg0);

    void setAssignment(String arg0, Assignment arg1, Map<String, Object> arg2);

    void setupBlob(String arg0, NimbusInfo arg1, Integer arg2);

    List<String> activeKeys();

    List<String> blobstore(Runnable callback);

    void removeStorm(String arg0);

    void removeBlobstoreKey(String arg0);

    void removeKeyVersion(String arg0);

    void reportError(String arg0, String arg1, String arg2, Long arg3, Throwable arg4);

    void setupErrors(String arg0, Map<String, Object> arg1);

    List<ErrorInfo> errors(String arg0, String arg1);

    ErrorInfo lastError(String arg0, String arg1);

    void setCredentials(String arg0, Credentials arg1, Map<String, Object> arg2);

    Credentials credentials(String arg0, Runnable callback);

    void disconnect();

    PrivateWorkerKey getPrivateWorkerKey(WorkerTokenServiceType arg0, String arg1, long arg2);

    void addPrivateWorkerKey(WorkerTokenServiceType arg0, String arg1, long arg2, PrivateWorkerKey arg3);

    long getNextPrivateWorkerKeyVersion(WorkerTokenServiceType arg0, String arg1);

    void removeExpiredPrivateWorkerKeys(String arg0);

    void removeAllPrivateWorkerKeys(String arg0);

    Set<String> idsOfTopologiesWithPrivateWorkerKeys();

    /** Every supervisor's info. */
    default Map<String, SupervisorInfo> allSupervisorInfo() {
        return allSupervisorInfo(null);
    }

    /** Every supervisor's info; {@code callback} runs when the set of supervisors changes. */
    default Map<String, SupervisorInfo> allSupervisorInfo(Runnable callback) {
        Map<String, SupervisorInfo> ret = new HashMap<>();
        for (String id : supervisors(callback)) {
            SupervisorInfo info = supervisorInfo(id);
            if (info != null) {
                ret.put(id, info);
            }
        }
        return ret;
    }

    /** The id of the active topology named {@code topologyName}, if any. */
    default Optional<String> getTopoId(String topologyName) {
        for (String topoId : activeStorms()) {
            StormBase base = stormBase(topoId, null);
            if (base != null && topologyName.equals(base.get_name())) {
                return Optional.of(topoId);
            }
        }
        return Optional.empty();
    }

    /** The base of every active topology, by id. */
    default Map<String, StormBase> topologyBases() {
        Map<String, StormBase> stormBases = new HashMap<>();
        for (String topologyId : activeStorms()) {
            StormBase base = stormBase(topologyId, null);
            if (base != null) {
                stormBases.put(topologyId, base);
            }
        }
        return stormBases;
    }
}

package org.apache.storm.cluster;

/**
 * Storm's view of the cluster state in ZooKeeper. Egret has no ZooKeeper: the type exists so
 * that {@code ILocalCluster.getClusterState()} links; no Egret object implements it and its
 * members are not provided.
 */
public interface IStormClusterState {
}

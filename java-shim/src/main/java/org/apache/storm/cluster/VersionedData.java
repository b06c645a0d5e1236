package org.apache.storm.cluster;

/** A value of the cluster state with the version it was read at. */
public class VersionedData<D> {
    private final int version;
    private final D data;

    public VersionedData(int version, D data) {
        this.version = version;
        this.data = data;
    }

    public int getVersion() {
        return version;
    }

    public D getData() {
        return data;
    }
}

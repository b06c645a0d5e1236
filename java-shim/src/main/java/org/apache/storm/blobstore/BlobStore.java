package org.apache.storm.blobstore;

/**
 * Storm's server side of the blob store (Nimbus, supervisors). Egret has none: this
 * type exists so the Storm methods that name it link.
 */
public abstract class BlobStore implements AutoCloseable {
    @Override
    public void close() {
    }
}

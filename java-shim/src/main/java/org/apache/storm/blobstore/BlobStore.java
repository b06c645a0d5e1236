package org.apache.storm.blobstore;

/**
 * Storm's server side of the blob store (Nimbus, supervisors). Egret has none: this
 * type exists so the Storm methods that name it link.
 */
public abstract class BlobStore implements AutoCloseable {
    /** The metadata of the blob {@code key}, as {@code who} may read it. */
    public abstract org.apache.storm.generated.ReadableBlobMeta getBlobMeta(String key, javax.security.auth.Subject who)
            throws org.apache.storm.generated.AuthorizationException, org.apache.storm.generated.KeyNotFoundException;

    @Override
    public void close() {
    }
}

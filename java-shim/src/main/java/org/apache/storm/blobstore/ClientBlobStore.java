package org.apache.storm.blobstore;

import java.util.Map;

/**
 * Storm's client side of the blob store. Egret has no blob store: this type exists so
 * topologies that name it link; {@code Utils.getClientBlobStore} refuses to make one.
 */
public abstract class ClientBlobStore implements AutoCloseable {
    public abstract void prepare(Map<String, Object> conf);

    /** The metadata of the blob {@code key}. */
    public abstract org.apache.storm.generated.ReadableBlobMeta getBlobMeta(String key)
            throws org.apache.storm.generated.AuthorizationException, org.apache.storm.generated.KeyNotFoundException;

    @Override
    public abstract void close();
}

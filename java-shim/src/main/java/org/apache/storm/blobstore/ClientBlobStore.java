package org.apache.storm.blobstore;

import java.util.Map;

/**
 * Storm's client side of the blob store. Egret has no blob store: this type exists so
 * topologies that name it link; {@code Utils.getClientBlobStore} refuses to make one.
 */
public abstract class ClientBlobStore implements AutoCloseable {
    public abstract void prepare(Map<String, Object> conf);

    @Override
    public abstract void close();
}

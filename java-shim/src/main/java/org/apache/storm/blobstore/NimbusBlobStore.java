package org.apache.storm.blobstore;

import java.util.Map;

/**
 * Storm's blob store client that talks to Nimbus. Egret has no blob store: every
 * instance refuses to prepare, naming the feature.
 */
public class NimbusBlobStore extends ClientBlobStore {
    @Override
    public void prepare(Map<String, Object> conf) {
        throw new UnsupportedOperationException("The Storm blob store (NimbusBlobStore) is not supported by Egret");
    }

    @Override
    public org.apache.storm.generated.ReadableBlobMeta getBlobMeta(String key)
            throws org.apache.storm.generated.AuthorizationException, org.apache.storm.generated.KeyNotFoundException {
        throw new UnsupportedOperationException("The Storm blob store (NimbusBlobStore) is not supported by Egret");
    }

    @Override
    public void close() {
    }
}

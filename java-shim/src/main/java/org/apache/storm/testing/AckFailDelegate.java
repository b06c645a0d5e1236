package org.apache.storm.testing;

import java.io.Serializable;

/** Told of a {@link FeederSpout}'s acks and fails (called in the JVM that fed the tuple on Egret). */
public interface AckFailDelegate extends Serializable {
    void ack(Object id);

    void fail(Object id);
}

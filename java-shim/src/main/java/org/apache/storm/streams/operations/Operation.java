package org.apache.storm.streams.operations;

import java.io.Serializable;

/** An operation of the Streams API: serialized into the bolts that run it. */
public interface Operation extends Serializable {
}

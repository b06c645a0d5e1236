package org.apache.storm.windowing;

import java.io.Serializable;
import org.apache.storm.tuple.Tuple;

/** Extracts a tuple's event time (ms) for event-time windows. */
public interface TimestampExtractor extends Serializable {
    long extractTimestamp(Tuple tuple);
}

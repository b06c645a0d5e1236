package org.apache.storm.streams.windowing;

import java.io.Serializable;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;

/**
 * A window of a stream: its length and sliding interval (each a {@code Count} or a
 * {@code Duration}), and, on event time, the timestamp field, the late tuple stream and the lag.
 *
 * @param <L> the type of the length
 * @param <I> the type of the sliding interval
 */
public interface Window<L, I> extends Serializable {
    L getWindowLength();

    I getSlidingInterval();

    /** The tuple field holding the event time, or null for processing time. */
    String getTimestampField();

    /** The stream late tuples go to, or null. */
    String getLateTupleStream();

    /** How far the event time may lag, or null. */
    Duration getLag();
}

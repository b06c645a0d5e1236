package org.apache.storm.streams.windowing;

import java.util.Objects;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;

/** Windows that do not overlap: the sliding interval is the length. */
public class TumblingWindows<L> extends BaseWindow<L, L> {
    private static final long serialVersionUID = 1L;

    private final L windowLength;

    private TumblingWindows(L windowLength) {
        this.windowLength = windowLength;
    }

    public static TumblingWindows<Count> of(Count count) {
        return new TumblingWindows<>(count);
    }

    public static TumblingWindows<Duration> of(Duration duration) {
        return new TumblingWindows<>(duration);
    }

    @Override
    public L getWindowLength() {
        return windowLength;
    }

    @Override
    public L getSlidingInterval() {
        return windowLength;
    }

    /** Event time from this tuple field. */
    public TumblingWindows<L> withTimestampField(String fieldName) {
        this.timestampField = fieldName;
        return this;
    }

    /** Late tuples go to this stream. */
    public TumblingWindows<L> withLateTupleStream(String streamId) {
        this.lateTupleStream = streamId;
        return this;
    }

    /** How far the event time may lag. */
    public TumblingWindows<L> withLag(Duration duration) {
        this.lag = duration;
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(windowLength, ((TumblingWindows<?>) o).windowLength);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), windowLength);
    }
}

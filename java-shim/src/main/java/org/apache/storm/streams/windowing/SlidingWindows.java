package org.apache.storm.streams.windowing;

import java.util.Objects;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;

/** A window of a length that slides by an interval (counts or durations). */
public class SlidingWindows<L, I> extends BaseWindow<L, I> {
    private static final long serialVersionUID = 1L;

    private final L windowLength;
    private final I slidingInterval;

    private SlidingWindows(L windowLength, I slidingInterval) {
        this.windowLength = windowLength;
        this.slidingInterval = slidingInterval;
    }

    public static SlidingWindows<Count, Count> of(Count windowLength, Count slidingInterval) {
        return new SlidingWindows<>(windowLength, slidingInterval);
    }

    public static SlidingWindows<Duration, Duration> of(Duration windowLength, Duration slidingInterval) {
        return new SlidingWindows<>(windowLength, slidingInterval);
    }

    public static SlidingWindows<Count, Duration> of(Count windowLength, Duration slidingInterval) {
        return new SlidingWindows<>(windowLength, slidingInterval);
    }

    public static SlidingWindows<Duration, Count> of(Duration windowLength, Count slidingInterval) {
        return new SlidingWindows<>(windowLength, slidingInterval);
    }

    @Override
    public L getWindowLength() {
        return windowLength;
    }

    @Override
    public I getSlidingInterval() {
        return slidingInterval;
    }

    /** Event time from this tuple field. */
    public SlidingWindows<L, I> withTimestampField(String fieldName) {
        this.timestampField = fieldName;
        return this;
    }

    /** Late tuples go to this stream. */
    public SlidingWindows<L, I> withLateTupleStream(String streamId) {
        this.lateTupleStream = streamId;
        return this;
    }

    /** How far the event time may lag. */
    public SlidingWindows<L, I> withLag(Duration duration) {
        this.lag = duration;
        return this;
    }

    @Override
    public boolean equals(Object o) {
        if (!super.equals(o)) {
            return false;
        }
        SlidingWindows<?, ?> that = (SlidingWindows<?, ?>) o;
        return Objects.equals(windowLength, that.windowLength) && Objects.equals(slidingInterval, that.slidingInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), windowLength, slidingInterval);
    }
}

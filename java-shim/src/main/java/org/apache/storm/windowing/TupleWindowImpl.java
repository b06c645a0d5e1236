package org.apache.storm.windowing;

import java.util.List;
import java.util.Objects;
import org.apache.storm.tuple.Tuple;

/**
 * A {@link TupleWindow} over lists the caller no longer changes. As in Storm, two windows
 * are equal when their tuples, new tuples and expired tuples are (the timestamps do not count).
 */
public class TupleWindowImpl implements TupleWindow {
    private final List<Tuple> tuples;
    private final List<Tuple> newTuples;
    private final List<Tuple> expiredTuples;
    private final Long startTimestamp;
    private final Long endTimestamp;

    public TupleWindowImpl(List<Tuple> tuples, List<Tuple> newTuples, List<Tuple> expiredTuples) {
        this(tuples, newTuples, expiredTuples, null, null);
    }

    public TupleWindowImpl(List<Tuple> tuples, List<Tuple> newTuples, List<Tuple> expiredTuples,
            Long startTimestamp, Long endTimestamp) {
        this.tuples = tuples;
        this.newTuples = newTuples;
        this.expiredTuples = expiredTuples;
        this.startTimestamp = startTimestamp;
        this.endTimestamp = endTimestamp;
    }

    @Override
    public List<Tuple> get() {
        return tuples;
    }

    @Override
    public List<Tuple> getNew() {
        return newTuples;
    }

    @Override
    public List<Tuple> getExpired() {
        return expiredTuples;
    }

    @Override
    public Long getStartTimestamp() {
        return startTimestamp;
    }

    @Override
    public Long getEndTimestamp() {
        return endTimestamp;
    }

    @Override
    public String toString() {
        return "TupleWindowImpl{tuples=" + tuples + ", newTuples=" + newTuples + ", expiredTuples=" + expiredTuples
                + ", startTimestamp=" + startTimestamp + ", endTimestamp=" + endTimestamp + "}";
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TupleWindowImpl)) {
            return false;
        }
        TupleWindowImpl that = (TupleWindowImpl) o;
        return Objects.equals(tuples, that.tuples) && Objects.equals(newTuples, that.newTuples)
                && Objects.equals(expiredTuples, that.expiredTuples);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tuples, newTuples, expiredTuples);
    }
}

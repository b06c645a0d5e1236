package org.apache.storm.windowing;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.storm.tuple.Tuple;

/**
 * A {@link TupleWindow} read through iterators (a persistent window): {@link #getIter}
 * streams it; {@link #get} copies it into a list. New and expired tuples are not tracked.
 */
public class TupleWindowIterImpl implements TupleWindow {
    private final Supplier<Iterator<Tuple>> tuplesIt;
    private final Supplier<Iterator<Tuple>> newTuplesIt;
    private final Supplier<Iterator<Tuple>> expiredTuplesIt;
    private final Long startTimestamp;
    private final Long endTimestamp;

    public TupleWindowIterImpl(Supplier<Iterator<Tuple>> tuplesIt, Supplier<Iterator<Tuple>> newTuplesIt,
            Supplier<Iterator<Tuple>> expiredTuplesIt, Long startTimestamp, Long endTimestamp) {
        this.tuplesIt = tuplesIt;
        this.newTuplesIt = newTuplesIt;
        this.expiredTuplesIt = expiredTuplesIt;
        this.startTimestamp = startTimestamp;
        this.endTimestamp = endTimestamp;
    }

    @Override
    public List<Tuple> get() {
        List<Tuple> tuples = new ArrayList<>();
        tuplesIt.get().forEachRemaining(tuples::add);
        return tuples;
    }

    @Override
    public Iterator<Tuple> getIter() {
        return tuplesIt.get();
    }

    @Override
    public List<Tuple> getNew() {
        throw new UnsupportedOperationException("Not implemented");
    }

    @Override
    public List<Tuple> getExpired() {
        throw new UnsupportedOperationException("Not implemented");
    }

    @Override
    public Long getEndTimestamp() {
        return endTimestamp;
    }

    @Override
    public Long getStartTimestamp() {
        return startTimestamp;
    }
}

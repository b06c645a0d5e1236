package org.apache.storm.topology.base;

import org.apache.storm.Config;
import org.apache.storm.state.State;
import org.apache.storm.topology.IStatefulWindowedBolt;
import org.apache.storm.windowing.TimestampExtractor;

/**
 * A windowed bolt with checkpointed state, configured like {@link BaseWindowedBolt}.
 * {@link #withPersistence()} is accepted; Egret keeps the windows in memory regardless.
 */
public abstract class BaseStatefulWindowedBolt<T extends State> extends BaseWindowedBolt
        implements IStatefulWindowedBolt<T> {
    private boolean persistent;
    private long maxEventsInMemory = 1_000_000L;

    public BaseStatefulWindowedBolt() {
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Count windowLength, Count slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Count windowLength, Duration slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Duration windowLength, Count slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Duration windowLength, Duration slidingInterval) {
        super.withWindow(windowLength, slidingInterval);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Count windowLength) {
        super.withWindow(windowLength);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWindow(Duration windowLength) {
        super.withWindow(windowLength);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withTumblingWindow(Count count) {
        super.withTumblingWindow(count);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withTumblingWindow(Duration duration) {
        super.withTumblingWindow(duration);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withTimestampField(String fieldName) {
        super.withTimestampField(fieldName);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withTimestampExtractor(TimestampExtractor timestampExtractor) {
        super.withTimestampExtractor(timestampExtractor);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withLateTupleStream(String streamId) {
        super.withLateTupleStream(streamId);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withLag(Duration duration) {
        super.withLag(duration);
        return this;
    }

    @Override
    public BaseStatefulWindowedBolt<T> withWatermarkInterval(Duration interval) {
        super.withWatermarkInterval(interval);
        return this;
    }

    /** The tuple field holding a unique message id (Storm uses it to recover windows). */
    public BaseStatefulWindowedBolt<T> withMessageIdField(String fieldName) {
        windowConfiguration.put(Config.TOPOLOGY_BOLTS_MESSAGE_ID_FIELD_NAME, fieldName);
        return this;
    }

    public BaseStatefulWindowedBolt<T> withPersistence() {
        persistent = true;
        return this;
    }

    public BaseStatefulWindowedBolt<T> withMaxEventsInMemory(long maxEventsInMemory) {
        this.maxEventsInMemory = maxEventsInMemory;
        return this;
    }

    @Override
    public boolean isPersistent() {
        return persistent;
    }

    @Override
    public long maxEventsInMemory() {
        return maxEventsInMemory;
    }

    @Override
    public void preCommit(long txid) {
    }

    @Override
    public void prePrepare(long txid) {
    }

    @Override
    public void preRollback() {
    }
}

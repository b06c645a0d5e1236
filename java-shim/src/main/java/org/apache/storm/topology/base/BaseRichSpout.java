package org.apache.storm.topology.base;

import org.apache.storm.topology.IRichSpout;

/** A spout with empty lifecycle and ack/fail callbacks. */
public abstract class BaseRichSpout extends BaseComponent implements IRichSpout {
    public BaseRichSpout() {
    }

    @Override
    public void close() {
    }

    @Override
    public void activate() {
    }

    @Override
    public void deactivate() {
    }

    @Override
    public void ack(Object msgId) {
    }

    @Override
    public void fail(Object msgId) {
    }
}

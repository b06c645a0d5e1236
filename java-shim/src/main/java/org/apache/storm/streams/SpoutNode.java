package org.apache.storm.streams;

import org.apache.storm.topology.IRichSpout;
import org.apache.storm.utils.Utils;

/** A spout a stream starts from: its default stream is the stream. */
class SpoutNode extends Node {
    private static final long serialVersionUID = 1L;

    private final IRichSpout spout;

    SpoutNode(IRichSpout spout) {
        super(Utils.DEFAULT_STREAM_ID, getOutputFields(spout, Utils.DEFAULT_STREAM_ID));
        this.spout = spout;
    }

    IRichSpout getSpout() {
        return spout;
    }

    /** A spout produces only its default stream. */
    @Override
    void addOutputStream(String streamId) {
        if (!Utils.DEFAULT_STREAM_ID.equals(streamId)) {
            throw new UnsupportedOperationException("A spout node produces only the default stream, not " + streamId);
        }
        super.addOutputStream(streamId);
    }
}

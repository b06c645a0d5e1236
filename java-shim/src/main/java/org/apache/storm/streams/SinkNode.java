package org.apache.storm.streams;

import org.apache.storm.topology.IBasicBolt;
import org.apache.storm.topology.IComponent;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/** A user's bolt (an {@code IRichBolt} or {@code IBasicBolt}) that a stream ends in. */
class SinkNode extends Node {
    private static final long serialVersionUID = 1L;

    private final IComponent bolt;

    SinkNode(IComponent bolt) {
        super(Utils.DEFAULT_STREAM_ID, outputFieldsOrNone(bolt));
        if (!(bolt instanceof IRichBolt) && !(bolt instanceof IBasicBolt)) {
            throw new IllegalArgumentException("A sink must be an IRichBolt or an IBasicBolt, not " + bolt);
        }
        this.bolt = bolt;
    }

    private static Fields outputFieldsOrNone(IComponent bolt) {
        try {
            return getOutputFields(bolt, Utils.DEFAULT_STREAM_ID);
        } catch (IllegalArgumentException e) {
            return new Fields();
        }
    }

    IComponent getBolt() {
        return bolt;
    }
}

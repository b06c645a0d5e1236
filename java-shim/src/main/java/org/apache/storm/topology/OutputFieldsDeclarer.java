package org.apache.storm.topology;

import org.apache.storm.tuple.Fields;

/** Receives a component's output stream declarations. */
public interface OutputFieldsDeclarer {
    /** Declares the default stream. */
    void declare(Fields fields);

    void declare(boolean direct, Fields fields);

    void declareStream(String streamId, Fields fields);

    void declareStream(String streamId, boolean direct, Fields fields);
}

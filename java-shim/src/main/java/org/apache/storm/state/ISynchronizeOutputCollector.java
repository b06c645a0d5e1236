package org.apache.storm.state;

import java.util.List;

/** What a state spout's {@code synchronize} adds its state through. */
public interface ISynchronizeOutputCollector {
    void add(int streamId, Object id, List<Object> tuple);
}

package org.apache.storm.state;

/** What a state spout emits its changes through: additions and removals by id. */
public interface IStateSpoutOutputCollector extends ISynchronizeOutputCollector {
    void remove(int streamId, Object id);
}

package org.apache.storm.state;

import org.apache.storm.tuple.Tuple;

/** State kept in sync with a state spout's stream (Storm declares state spouts but does not run them). */
public interface ISubscribedState {
    void set(Object id, Tuple tuple);

    void remove(Object id);
}

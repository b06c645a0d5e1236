package org.apache.storm.state;

/** Storm's collector for state spouts, which Storm never implemented: every call is refused, as in Storm. */
public class StateSpoutOutputCollector extends SynchronizeOutputCollector implements IStateSpoutOutputCollector {
    public StateSpoutOutputCollector() {
    }

    @Override
    public void remove(int streamId, Object id) {
        throw new UnsupportedOperationException("Not supported yet: state spouts are not run by Storm or Egret");
    }
}

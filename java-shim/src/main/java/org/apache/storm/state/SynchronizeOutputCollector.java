package org.apache.storm.state;

import java.util.List;

/** Storm's collector for state spouts, which Storm never implemented: every call is refused, as in Storm. */
public class SynchronizeOutputCollector implements ISynchronizeOutputCollector {
    public SynchronizeOutputCollector() {
    }

    @Override
    public void add(int streamId, Object id, List<Object> tuple) {
        throw new UnsupportedOperationException("Not supported yet: state spouts are not run by Storm or Egret");
    }
}

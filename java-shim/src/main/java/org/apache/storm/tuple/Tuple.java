package org.apache.storm.tuple;

import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.task.GeneralTopologyContext;

/** A tuple received by a bolt: its values plus where it came from. */
public interface Tuple extends ITuple {
    GlobalStreamId getSourceGlobalStreamId();

    String getSourceComponent();

    int getSourceTask();

    String getSourceStreamId();

    MessageId getMessageId();

    GeneralTopologyContext getContext();
}

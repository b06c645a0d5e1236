package org.apache.storm.topology;

import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.tuple.Fields;

/** Subscriptions of a bolt to other components' streams. */
public interface InputDeclarer<T extends InputDeclarer> {
    T fieldsGrouping(String componentId, Fields fields);

    T fieldsGrouping(String componentId, String streamId, Fields fields);

    T globalGrouping(String componentId);

    T globalGrouping(String componentId, String streamId);

    T shuffleGrouping(String componentId);

    T shuffleGrouping(String componentId, String streamId);

    T localOrShuffleGrouping(String componentId);

    T localOrShuffleGrouping(String componentId, String streamId);

    T noneGrouping(String componentId);

    T noneGrouping(String componentId, String streamId);

    T allGrouping(String componentId);

    T allGrouping(String componentId, String streamId);

    T directGrouping(String componentId);

    T directGrouping(String componentId, String streamId);

    T partialKeyGrouping(String componentId, Fields fields);

    T partialKeyGrouping(String componentId, String streamId, Fields fields);

    T customGrouping(String componentId, CustomStreamGrouping grouping);

    T customGrouping(String componentId, String streamId, CustomStreamGrouping grouping);

    T grouping(GlobalStreamId id, Grouping grouping);
}

package org.apache.storm.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.tuple.Values;

/** Fixed tuples that stand in for spouts' output in a test: spout id to its tuples (with streams). */
public class MockedSources {
    private final Map<String, List<FixedTuple>> data;

    public MockedSources() {
        this.data = new HashMap<>();
    }

    public MockedSources(Map<String, List<FixedTuple>> data) {
        this.data = new HashMap<>(data);
    }

    /** Adds {@code valueses} as tuples of {@code spoutId} on {@code streamId}. */
    public void addMockData(String spoutId, String streamId, Values... valueses) {
        List<FixedTuple> tuples = data.computeIfAbsent(spoutId, k -> new ArrayList<>());
        for (Values values : valueses) {
            tuples.add(new FixedTuple(streamId, values));
        }
    }

    /** Adds {@code valueses} as tuples of {@code spoutId} on the default stream. */
    public void addMockData(String spoutId, Values... valueses) {
        addMockData(spoutId, "default", valueses);
    }

    public Map<String, List<FixedTuple>> getData() {
        return data;
    }
}

package org.apache.storm.streams.processors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.streams.Pair;

/**
 * Groups the values of two streams by key: forwards, per key, the pair of the first
 * stream's values and the second's (either may be empty), at each window's end when
 * windowed, otherwise after each value.
 */
public class CoGroupByKeyProcessor<K, V1, V2> extends BaseProcessor<Pair<K, ?>> implements BatchProcessor {
    private static final long serialVersionUID = 1L;

    private final String firstStream;
    private final String secondStream;
    private final Map<K, List<V1>> firstMap = new LinkedHashMap<>();
    private final Map<K, List<V2>> secondMap = new LinkedHashMap<>();

    public CoGroupByKeyProcessor(String firstStream, String secondStream) {
        this.firstStream = firstStream;
        this.secondStream = secondStream;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(Pair<K, ?> input, String sourceStream) {
        K key = input.getFirst();
        if (sourceStream.equals(firstStream)) {
            firstMap.computeIfAbsent(key, k -> new ArrayList<>()).add((V1) input.getSecond());
        } else if (sourceStream.equals(secondStream)) {
            secondMap.computeIfAbsent(key, k -> new ArrayList<>()).add((V2) input.getSecond());
        }
        if (!context.isWindowed()) {
            forwardValues();
        }
    }

    @Override
    public void finish() {
        forwardValues();
        firstMap.clear();
        secondMap.clear();
    }

    @SuppressWarnings("unchecked")
    private void forwardValues() {
        Map<K, List<V2>> second = new LinkedHashMap<>(secondMap);
        for (Map.Entry<K, List<V1>> e : firstMap.entrySet()) {
            List<V2> others = second.remove(e.getKey());
            context.forward(Pair.of(e.getKey(), Pair.of(new ArrayList<>(e.getValue()),
                    others == null ? new ArrayList<>() : new ArrayList<>(others))));
        }
        for (Map.Entry<K, List<V2>> e : second.entrySet()) {
            context.forward(Pair.of(e.getKey(), Pair.of(Collections.emptyList(), new ArrayList<>(e.getValue()))));
        }
    }
}

package org.apache.storm.streams.processors;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.storm.streams.operations.Predicate;

/** Forwards each value on the stream of the first predicate (in the order added) that accepts it. */
public class BranchProcessor<T> extends BaseProcessor<T> {
    private static final long serialVersionUID = 1L;
    private final Map<Predicate<? super T>, String> predicateToStream = new LinkedHashMap<>();

    public void addPredicate(Predicate<? super T> predicate, String stream) {
        predicateToStream.put(predicate, stream);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(T input) {
        for (Map.Entry<Predicate<? super T>, String> e : predicateToStream.entrySet()) {
            if (e.getKey().test(input)) {
                context.forward(input, e.getValue());
                break;
            }
        }
    }
}

package org.apache.storm.testing;

import java.util.Map;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;

/**
 * Runs a bolt and counts each tuple it has executed in the {@code "processed"} counter
 * (an {@code AtomicInteger}) of the stats map that {@link org.apache.storm.utils.RegisteredGlobalState}
 * holds under {@code id} (a tracked topology's counters, in the same JVM).
 */
public class NonRichBoltTracker implements IBolt {
    private static final long serialVersionUID = 1L;

    private final IBolt delegate;
    private final String trackId;

    public NonRichBoltTracker(IBolt delegate, String id) {
        this.delegate = delegate;
        this.trackId = id;
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        delegate.prepare(topoConf, context, collector);
    }

    @Override
    public void execute(Tuple input) {
        delegate.execute(input);
        TrackerStats.add(trackId, "processed", 1);
    }

    @Override
    public void cleanup() {
        delegate.cleanup();
    }
}

package org.apache.storm.topology;

import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.windowing.TimestampExtractor;
import org.apache.storm.windowing.TupleWindow;

/**
 * A bolt that processes windows of tuples. {@link TopologyBuilder} runs it inside a
 * {@link WindowedBoltExecutor}; the window's shape is in its component configuration.
 */
public interface IWindowedBolt extends IComponent {
    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector);

    /** Processes a window; emits without anchors are anchored to the window's tuples. */
    void execute(TupleWindow inputWindow);

    void cleanup();

    /** The event-time extractor, or null for processing time. */
    TimestampExtractor getTimestampExtractor();
}

package org.apache.storm.streams;

import java.util.List;
import java.util.Map;
import org.apache.storm.shade.com.google.common.collect.Multimap;
import org.apache.storm.shade.org.jgrapht.DirectedGraph;
import org.apache.storm.streams.windowing.SlidingWindows;
import org.apache.storm.streams.windowing.TumblingWindows;
import org.apache.storm.streams.windowing.Window;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseWindowedBolt;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.windowing.TupleWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a group of a stream's processors over windows: a windowed bolt (run by Storm's
 * windowed bolt executor, which acks the tuples) configured from the stream's
 * {@link Window}; each window's tuples go through the processors, then every initial
 * processor ends its window.
 */
class WindowedProcessorBolt extends BaseWindowedBolt implements StreamBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WindowedProcessorBolt.class);

    private final ProcessorBoltDelegate delegate;
    private final Window<?, ?> window;

    WindowedProcessorBolt(String id, DirectedGraph<Node, Edge> graph, List<ProcessorNode> nodes, Window<?, ?> window) {
        delegate = new ProcessorBoltDelegate(id, graph, nodes);
        this.window = window;
        setWindowConfig();
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        delegate.prepare(topoConf, context, collector);
    }

    @Override
    public void execute(TupleWindow inputWindow) {
        int n = 0;
        for (Tuple tuple : inputWindow.get()) {
            Pair<Object, String> valueAndStream = delegate.getValueAndStream(tuple);
            if (StreamUtil.isPunctuation(valueAndStream.getFirst())) {
                continue;
            }
            if (delegate.isEventTimestamp()) {
                delegate.setEventTimestamp(tuple.getLongByField(delegate.getTimestampField()));
            }
            delegate.process(valueAndStream.getFirst(), valueAndStream.getSecond());
            n++;
        }
        LOG.debug("Stream bolt {} evaluated a window of {} tuples", delegate.getId(), n);
        delegate.punctuateWindow();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        delegate.declareOutputFields(declarer);
    }

    @Override
    public void setTimestampField(String fieldName) {
        delegate.setTimestampField(fieldName);
    }

    @Override
    public String getId() {
        return delegate.getId();
    }

    private void setWindowConfig() {
        if (window instanceof SlidingWindows) {
            setSlidingWindowParams(window.getWindowLength(), window.getSlidingInterval());
        } else if (window instanceof TumblingWindows) {
            setTumblingWindowParams(window.getWindowLength());
        } else {
            throw new IllegalArgumentException("Unknown window " + window);
        }
        if (window.getTimestampField() != null) {
            withTimestampField(window.getTimestampField());
        }
        if (window.getLag() != null) {
            withLag(window.getLag());
        }
        if (window.getLateTupleStream() != null) {
            withLateTupleStream(window.getLateTupleStream());
        }
    }

    private void setSlidingWindowParams(Object windowLength, Object slidingInterval) {
        if (windowLength instanceof Count && slidingInterval instanceof Count) {
            withWindow((Count) windowLength, (Count) slidingInterval);
        } else if (windowLength instanceof Count && slidingInterval instanceof Duration) {
            withWindow((Count) windowLength, (Duration) slidingInterval);
        } else if (windowLength instanceof Duration && slidingInterval instanceof Count) {
            withWindow((Duration) windowLength, (Count) slidingInterval);
        } else if (windowLength instanceof Duration && slidingInterval instanceof Duration) {
            withWindow((Duration) windowLength, (Duration) slidingInterval);
        } else {
            throw new IllegalArgumentException("A window length and sliding interval must be a Count or a Duration, not "
                    + windowLength + " and " + slidingInterval);
        }
    }

    private void setTumblingWindowParams(Object windowLength) {
        if (windowLength instanceof Count) {
            withTumblingWindow((Count) windowLength);
        } else if (windowLength instanceof Duration) {
            withTumblingWindow((Duration) windowLength);
        } else {
            throw new IllegalArgumentException("A window length must be a Count or a Duration, not " + windowLength);
        }
    }

    void setStreamToInitialProcessors(Multimap<String, ProcessorNode> streamToInitialProcessors) {
        delegate.setStreamToInitialProcessors(streamToInitialProcessors);
    }
}

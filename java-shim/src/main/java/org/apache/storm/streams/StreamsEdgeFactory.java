package org.apache.storm.streams;

import java.io.Serializable;
import org.apache.storm.shade.org.jgrapht.EdgeFactory;

/** Makes the edges of a stream graph (a jgrapht graph, as storm-shaded-deps relocates it). */
class StreamsEdgeFactory implements EdgeFactory<Node, Edge>, Serializable {
    private static final long serialVersionUID = 1L;

    StreamsEdgeFactory() {
    }

    @Override
    public Edge createEdge(Node sourceVertex, Node targetVertex) {
        return new Edge(sourceVertex, targetVertex);
    }
}

package org.apache.storm.streams;

import java.io.Serializable;

/** An edge of a stream graph: from the node that produces a stream to the node that consumes it. */
class Edge implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Node source;
    private final Node target;

    Edge(Node source, Node target) {
        this.source = source;
        this.target = target;
    }

    public Node getSource() {
        return source;
    }

    public Node getTarget() {
        return target;
    }
}

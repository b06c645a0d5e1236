package org.apache.storm.streams;

import java.util.ArrayList;
import java.util.List;
import org.apache.storm.shade.org.jgrapht.DirectedGraph;
import org.apache.storm.tuple.Fields;

/** Helpers over a stream graph and the punctuation streams. */
public class StreamUtil {
    private static final String PUNCTUATION_SUFFIX = "__punctuation";

    public StreamUtil() {
    }

    /** The sources of {@code node}'s incoming edges. */
    @SuppressWarnings("unchecked")
    public static <T> List<T> getParents(DirectedGraph<Node, Edge> graph, Node node) {
        List<T> parents = new ArrayList<>();
        for (Edge e : graph.incomingEdgesOf(node)) {
            parents.add((T) graph.getEdgeSource(e));
        }
        return parents;
    }

    /** The targets of {@code node}'s outgoing edges. */
    @SuppressWarnings("unchecked")
    public static <T> List<T> getChildren(DirectedGraph<Node, Edge> graph, Node node) {
        List<T> children = new ArrayList<>();
        for (Edge e : graph.outgoingEdgesOf(node)) {
            children.add((T) graph.getEdgeTarget(e));
        }
        return children;
    }

    /** Whether {@code value} is the punctuation that marks a window's end. */
    public static boolean isPunctuation(Object value) {
        return WindowNode.PUNCTUATION.equals(value);
    }

    /** The stream that carries {@code stream}'s punctuations. */
    public static String getPunctuationStream(String stream) {
        return stream + PUNCTUATION_SUFFIX;
    }

    /** The stream whose punctuations {@code stream} carries, or {@code stream} itself. */
    public static String getSourceStream(String stream) {
        if (stream.endsWith(PUNCTUATION_SUFFIX)) {
            return stream.substring(0, stream.length() - PUNCTUATION_SUFFIX.length());
        }
        return stream;
    }

    /** The fields of a punctuation stream. */
    public static Fields getPunctuationFields() {
        return new Fields(WindowNode.PUNCTUATION);
    }
}

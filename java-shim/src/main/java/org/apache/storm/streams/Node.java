package org.apache.storm.streams;

import java.io.Serializable;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.shade.com.google.common.collect.LinkedListMultimap;
import org.apache.storm.shade.com.google.common.collect.Multimap;
import org.apache.storm.topology.IComponent;
import org.apache.storm.topology.OutputFieldsGetter;
import org.apache.storm.tuple.Fields;

/**
 * A vertex of the graph a {@link StreamBuilder} records: a spout, a processor, a partition,
 * a window or a sink. It knows the streams it produces, the streams of each parent it
 * consumes, its parallelism and, once built, the component that runs it. Nodes compare by
 * identity.
 */
abstract class Node implements Serializable {
    private static final long serialVersionUID = 1L;

    protected final Fields outputFields;
    private final Set<String> outputStreams;
    private final Multimap<Node, String> parentStreams = LinkedListMultimap.create();
    protected GroupingInfo groupingInfo;
    protected String componentId;
    protected int parallelism;
    private boolean windowed;
    private boolean emitsPair;

    Node(Set<String> outputStreams, Fields outputFields, String componentId, int parallelism,
            GroupingInfo groupingInfo) {
        this.outputStreams = new LinkedHashSet<>(outputStreams);
        this.outputFields = outputFields;
        this.componentId = componentId;
        this.parallelism = parallelism;
        this.groupingInfo = groupingInfo;
    }

    Node(String outputStream, Fields outputFields, String componentId, int parallelism, GroupingInfo groupingInfo) {
        this(Collections.singleton(outputStream), outputFields, componentId, parallelism, groupingInfo);
    }

    Node(String outputStream, Fields outputFields, String componentId, GroupingInfo groupingInfo) {
        this(outputStream, outputFields, componentId, 1, groupingInfo);
    }

    Node(String outputStream, Fields outputFields) {
        this(outputStream, outputFields, null);
    }

    Node(String outputStream, Fields outputFields, GroupingInfo groupingInfo) {
        this(outputStream, outputFields, null, groupingInfo);
    }

    /** The fields {@code component} declares for {@code streamId}; refused when it declares no such stream. */
    static Fields getOutputFields(IComponent component, String streamId) {
        OutputFieldsGetter getter = new OutputFieldsGetter();
        component.declareOutputFields(getter);
        Map<String, StreamInfo> declared = getter.getFieldsDeclaration();
        StreamInfo info = declared.get(streamId);
        if (info == null) {
            throw new IllegalArgumentException("Stream id '" + streamId + "' is not declared by " + component
                    + " (it declares " + declared.keySet() + ")");
        }
        return new Fields(info.get_output_fields());
    }

    public Fields getOutputFields() {
        return outputFields;
    }

    GroupingInfo getGroupingInfo() {
        return groupingInfo;
    }

    void setGroupingInfo(GroupingInfo groupingInfo) {
        this.groupingInfo = groupingInfo;
    }

    String getComponentId() {
        return componentId;
    }

    void setComponentId(String componentId) {
        this.componentId = componentId;
    }

    int getParallelism() {
        return parallelism;
    }

    void setParallelism(int parallelism) {
        this.parallelism = parallelism;
    }

    void addParentStream(Node parent, String streamId) {
        parentStreams.put(parent, streamId);
    }

    void removeParentStreams(Node parent) {
        parentStreams.removeAll(parent);
    }

    Set<String> getOutputStreams() {
        return Collections.unmodifiableSet(outputStreams);
    }

    public boolean isWindowed() {
        return windowed;
    }

    public void setWindowed(boolean windowed) {
        this.windowed = windowed;
    }

    Collection<String> getParentStreams(Node parent) {
        return parentStreams.get(parent);
    }

    /** The parents whose stream {@code streamId} this node consumes. */
    Set<Node> getParents(String streamId) {
        Set<Node> parents = new LinkedHashSet<>();
        for (Map.Entry<Node, String> e : parentStreams.entries()) {
            if (e.getValue().equals(streamId)) {
                parents.add(e.getKey());
            }
        }
        return parents;
    }

    Set<Node> getParents() {
        return new LinkedHashSet<>(parentStreams.keySet());
    }

    void addOutputStream(String streamId) {
        outputStreams.add(streamId);
    }

    public boolean emitsPair() {
        return emitsPair;
    }

    public void setEmitsPair(boolean emitsPair) {
        this.emitsPair = emitsPair;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{outputStreams=" + outputStreams + ", outputFields=" + outputFields
                + ", componentId=" + componentId + ", parallelism=" + parallelism + ", groupingInfo=" + groupingInfo
                + ", windowed=" + windowed + ", emitsPair=" + emitsPair + "}";
    }
}

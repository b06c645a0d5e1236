package org.apache.storm.streams;

import org.apache.storm.tuple.Fields;

/** Repartitions its parent's stream (shuffle, by fields, global) toward the next bolt. */
class PartitionNode extends Node {
    private static final long serialVersionUID = 1L;

    PartitionNode(String outputStream, Fields outputFields, GroupingInfo groupingInfo) {
        super(outputStream, outputFields, groupingInfo);
    }

    PartitionNode(String outputStream, Fields outputFields) {
        this(outputStream, outputFields, GroupingInfo.shuffle());
    }
}

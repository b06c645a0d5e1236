package org.apache.storm.streams;

import java.io.Serializable;
import java.util.Objects;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.tuple.Fields;

/** How a stream is partitioned toward the bolt that consumes it: shuffle, fields, global or all. */
abstract class GroupingInfo implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Fields fields;
    /** shuffle, fields, global or all. */
    private final String kind;

    private GroupingInfo(String kind) {
        this(kind, null);
    }

    private GroupingInfo(String kind, Fields fields) {
        this.kind = kind;
        this.fields = fields;
    }

    public static GroupingInfo shuffle() {
        return new GroupingInfo("shuffle") {
            private static final long serialVersionUID = 1L;

            @Override
            public void declareGrouping(BoltDeclarer declarer, String componentId, String streamId, Fields fields) {
                declarer.shuffleGrouping(componentId, streamId);
            }
        };
    }

    public static GroupingInfo fields(Fields fields) {
        return new GroupingInfo("fields", fields) {
            private static final long serialVersionUID = 1L;

            @Override
            public void declareGrouping(BoltDeclarer declarer, String componentId, String streamId, Fields fields) {
                declarer.fieldsGrouping(componentId, streamId, fields);
            }
        };
    }

    public static GroupingInfo global() {
        return new GroupingInfo("global") {
            private static final long serialVersionUID = 1L;

            @Override
            public void declareGrouping(BoltDeclarer declarer, String componentId, String streamId, Fields fields) {
                declarer.globalGrouping(componentId, streamId);
            }
        };
    }

    public static GroupingInfo all() {
        return new GroupingInfo("all") {
            private static final long serialVersionUID = 1L;

            @Override
            public void declareGrouping(BoltDeclarer declarer, String componentId, String streamId, Fields fields) {
                declarer.allGrouping(componentId, streamId);
            }
        };
    }

    /** Subscribes {@code declarer} to {@code componentId}'s {@code streamId} with this grouping. */
    public abstract void declareGrouping(BoltDeclarer declarer, String componentId, String streamId, Fields fields);

    public Fields getFields() {
        return fields;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GroupingInfo)) {
            return false;
        }
        GroupingInfo that = (GroupingInfo) o;
        return kind.equals(that.kind) && Objects.equals(fieldList(), that.fieldList());
    }

    private Object fieldList() {
        return fields == null ? null : fields.toList();
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, fieldList());
    }

    @Override
    public String toString() {
        return "GroupingInfo{" + kind + (fields == null ? "" : ", fields=" + fields) + "}";
    }
}

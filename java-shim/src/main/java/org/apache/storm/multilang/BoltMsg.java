package org.apache.storm.multilang;

import java.util.List;

/**
 * A tuple sent to a multilang bolt: {@code {"id", "comp", "stream", "task", "tuple"}}. The id
 * is the one the subprocess names in its acks, fails and anchors.
 */
public class BoltMsg {
    private String id;
    private String comp;
    private String stream;
    private long task;
    private List<Object> tuple;

    public BoltMsg() {
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getComp() {
        return comp;
    }

    public void setComp(String comp) {
        this.comp = comp;
    }

    public String getStream() {
        return stream;
    }

    public void setStream(String stream) {
        this.stream = stream;
    }

    public long getTask() {
        return task;
    }

    public void setTask(long task) {
        this.task = task;
    }

    public List<Object> getTuple() {
        return tuple;
    }

    public void setTuple(List<Object> tuple) {
        this.tuple = tuple;
    }

    @Override
    public String toString() {
        return "BoltMsg{id=" + id + ", comp=" + comp + ", stream=" + stream + ", task=" + task
                + ", tuple=" + tuple + "}";
    }
}

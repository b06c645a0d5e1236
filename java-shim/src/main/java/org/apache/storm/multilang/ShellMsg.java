package org.apache.storm.multilang;

import java.util.ArrayList;
import java.util.List;

/**
 * One message from a multilang subprocess: a command ({@code emit}, {@code ack}, {@code fail},
 * {@code log}, {@code error}, {@code sync}, {@code metrics}) and its arguments.
 */
public class ShellMsg {
    private String command;
    private Object id;
    private List<String> anchors;
    private String stream;
    private long task;
    private String msg;
    private List<Object> tuple;
    private boolean needTaskIds;
    private String metricName;
    private Object metricParams;
    private ShellLogLevel logLevel = ShellLogLevel.INFO;

    public ShellMsg() {
    }

    public String getCommand() {
        return command;
    }

    public void setCommand(String command) {
        this.command = command;
    }

    public Object getId() {
        return id;
    }

    public void setId(Object id) {
        this.id = id;
    }

    public List<String> getAnchors() {
        return anchors;
    }

    public void setAnchors(List<String> anchors) {
        this.anchors = anchors;
    }

    public void addAnchor(String anchor) {
        if (anchors == null) {
            anchors = new ArrayList<>();
        }
        anchors.add(anchor);
    }

    public String getStream() {
        return stream;
    }

    public void setStream(String stream) {
        this.stream = stream;
    }

    /** The direct target task of an emit, 0 when the emit is not direct. */
    public long getTask() {
        return task;
    }

    public void setTask(long task) {
        this.task = task;
    }

    public String getMsg() {
        return msg;
    }

    public void setMsg(String msg) {
        this.msg = msg;
    }

    public List<Object> getTuple() {
        return tuple;
    }

    public void setTuple(List<Object> tuple) {
        this.tuple = tuple;
    }

    public void addTuple(Object value) {
        if (tuple == null) {
            tuple = new ArrayList<>();
        }
        tuple.add(value);
    }

    /** Whether the subprocess waits for the task ids of this emit (the protocol's default: yes). */
    public boolean areTaskIdsNeeded() {
        return needTaskIds;
    }

    public void setNeedTaskIds(boolean needTaskIds) {
        this.needTaskIds = needTaskIds;
    }

    public String getMetricName() {
        return metricName;
    }

    public void setMetricName(String metricName) {
        this.metricName = metricName;
    }

    public Object getMetricParams() {
        return metricParams;
    }

    public void setMetricParams(Object metricParams) {
        this.metricParams = metricParams;
    }

    public ShellLogLevel getLogLevel() {
        return logLevel;
    }

    public void setLogLevel(int level) {
        this.logLevel = ShellLogLevel.fromInt(level);
    }

    @Override
    public String toString() {
        return "ShellMsg{command=" + command + ", id=" + id + ", anchors=" + anchors + ", stream=" + stream
                + ", task=" + task + ", msg=" + msg + ", tuple=" + tuple + ", needTaskIds=" + needTaskIds
                + ", metricName=" + metricName + ", metricParams=" + metricParams + ", logLevel=" + logLevel + "}";
    }

    /** The {@code level} of a {@code log} command: 0 trace, 1 debug, 2 info, 3 warn, 4 error. */
    public enum ShellLogLevel {
        TRACE, DEBUG, INFO, WARN, ERROR;

        /** Unknown levels log at INFO: a message is never dropped for its level. */
        public static ShellLogLevel fromInt(int i) {
            switch (i) {
                case 0:
                    return TRACE;
                case 1:
                    return DEBUG;
                case 3:
                    return WARN;
                case 4:
                    return ERROR;
                case 2:
                default:
                    return INFO;
            }
        }
    }
}

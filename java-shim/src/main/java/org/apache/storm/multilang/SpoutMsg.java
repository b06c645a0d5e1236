package org.apache.storm.multilang;

/** A command sent to a multilang spout: {@code next}, {@code ack}, {@code fail}, {@code activate}, {@code deactivate}. */
public class SpoutMsg {
    private String command;
    private Object id;

    public SpoutMsg() {
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

    @Override
    public String toString() {
        return "SpoutMsg{command=" + command + ", id=" + id + "}";
    }
}

package org.apache.storm.streams;

import org.apache.storm.streams.windowing.Window;
import org.apache.storm.tuple.Fields;

/** Windows its parent's stream: the next bolt runs as a windowed bolt over it. */
public class WindowNode extends Node {
    private static final long serialVersionUID = 1L;

    /** The value of the tuples that mark a window's end downstream. */
    public static final String PUNCTUATION = "__punctuation";

    private final Window<?, ?> windowParams;

    WindowNode(Window<?, ?> windowParams, String outputStream, Fields outputFields) {
        super(outputStream, outputFields);
        this.windowParams = windowParams;
    }

    Window<?, ?> getWindowParams() {
        return windowParams;
    }

    @Override
    public String toString() {
        return "WindowNode{windowParams=" + windowParams + ", " + super.toString() + "}";
    }

    @Override
    public void setEmitsPair(boolean emitsPair) {
        super.setEmitsPair(emitsPair);
    }

    @Override
    public boolean emitsPair() {
        return super.emitsPair();
    }

    @Override
    public void setWindowed(boolean windowed) {
        super.setWindowed(windowed);
    }

    @Override
    public boolean isWindowed() {
        return super.isWindowed();
    }

    @Override
    public Fields getOutputFields() {
        return super.getOutputFields();
    }
}

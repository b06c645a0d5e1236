package org.apache.storm.windowing;

/** A watermark: every event with a timestamp up to this one's has arrived. */
public class WaterMarkEvent<T> extends EventImpl<T> {
    public WaterMarkEvent(long ts) {
        super(null, ts);
    }

    @Override
    public boolean isWatermark() {
        return true;
    }

    @Override
    public String toString() {
        return "WaterMarkEvent{} " + super.toString();
    }
}

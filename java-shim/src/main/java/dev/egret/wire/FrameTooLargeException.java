package dev.egret.wire;

import java.io.IOException;

/** A peer announced a frame longer than the connection's cap; the connection must be dropped. */
public final class FrameTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    private final long length;
    private final int limit;

    public FrameTooLargeException(long length, int limit) {
        super("frame of " + length + " bytes exceeds the limit of " + limit + " bytes");
        this.length = length;
        this.limit = limit;
    }

    public long length() {
        return length;
    }

    public int limit() {
        return limit;
    }
}

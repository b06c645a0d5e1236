package dev.egret.wire;

import java.io.IOException;

/** The peer refused our hello (or answered with garbage); the connection is unusable. */
public final class HandshakeException extends IOException {
    private static final long serialVersionUID = 1L;

    public HandshakeException(String message) {
        super(message);
    }

    public HandshakeException(String message, Throwable cause) {
        super(message, cause);
    }
}

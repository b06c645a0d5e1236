package org.apache.storm.topology;

/**
 * Thrown from {@link IBasicBolt#execute} to fail the input tuple instead of acking it.
 */
public class FailedException extends RuntimeException {
    public FailedException() {
        super();
    }

    public FailedException(String msg) {
        super(msg);
    }

    public FailedException(String msg, Throwable cause) {
        super(msg, cause);
    }

    public FailedException(Throwable cause) {
        super(cause);
    }
}

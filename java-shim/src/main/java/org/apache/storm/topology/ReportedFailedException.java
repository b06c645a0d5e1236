package org.apache.storm.topology;

/**
 * Thrown from {@link IBasicBolt#execute} to fail the input tuple instead of acking it; the error is also reported (reportError).
 */
public class ReportedFailedException extends FailedException {
    public ReportedFailedException() {
        super();
    }

    public ReportedFailedException(String msg) {
        super(msg);
    }

    public ReportedFailedException(String msg, Throwable cause) {
        super(msg, cause);
    }

    public ReportedFailedException(Throwable cause) {
        super(cause);
    }
}

package org.apache.storm.hooks;

/** A submitter hook ({@link org.apache.storm.ISubmitterHook}) could not be created or failed. */
public class SubmitterHookException extends RuntimeException {
    public SubmitterHookException() {
    }

    public SubmitterHookException(String message) {
        super(message);
    }

    public SubmitterHookException(String message, Throwable cause) {
        super(message, cause);
    }

    public SubmitterHookException(Throwable cause) {
        super(cause);
    }
}

package org.apache.storm.multilang;

/** The subprocess closed its output (or sent nothing) where a message was expected. */
public class NoOutputException extends Exception {
    private static final long serialVersionUID = 1L;

    public NoOutputException() {
        super();
    }

    public NoOutputException(String message) {
        super(message);
    }

    public NoOutputException(String message, Throwable cause) {
        super(message, cause);
    }

    public NoOutputException(Throwable cause) {
        super(cause);
    }
}

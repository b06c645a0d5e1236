package org.apache.storm.thrift;

/**
 * Root of the exceptions Storm's (relocated) Thrift API declares. Present so that user
 * code compiled with {@code catch (TException e)} links and verifies.
 */
public class TException extends Exception {
    private static final long serialVersionUID = 1L;

    public TException() {
        super();
    }

    public TException(String message) {
        super(message);
    }

    public TException(Throwable cause) {
        super(cause);
    }

    public TException(String message, Throwable cause) {
        super(message, cause);
    }
}

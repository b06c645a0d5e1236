package org.apache.storm.utils;

/**
 * A {@link org.apache.storm.generated.HBExecutionException} whose {@link #getMessage()} is its {@code msg}
 * field (the Thrift struct's own message is null), so logs and {@code toString()} show it.
 */
public class WrappedHBExecutionException extends org.apache.storm.generated.HBExecutionException {
    private static final long serialVersionUID = 1L;

    public WrappedHBExecutionException(String msg) {
        super(msg);
    }

    @Override
    public String getMessage() {
        return get_msg();
    }
}

package org.apache.storm.utils;

/**
 * A {@link org.apache.storm.generated.NotAliveException} whose {@link #getMessage()} is its {@code msg}
 * field (the Thrift struct's own message is null), so logs and {@code toString()} show it.
 */
public class WrappedNotAliveException extends org.apache.storm.generated.NotAliveException {
    private static final long serialVersionUID = 1L;

    public WrappedNotAliveException(String msg) {
        super(msg);
    }

    @Override
    public String getMessage() {
        return get_msg();
    }
}

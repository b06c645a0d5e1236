package org.apache.storm.utils;

/**
 * A {@link org.apache.storm.generated.AlreadyAliveException} whose {@link #getMessage()} is its {@code msg}
 * field (the Thrift struct's own message is null), so logs and {@code toString()} show it.
 */
public class WrappedAlreadyAliveException extends org.apache.storm.generated.AlreadyAliveException {
    private static final long serialVersionUID = 1L;

    public WrappedAlreadyAliveException(String msg) {
        super(msg);
    }

    @Override
    public String getMessage() {
        return get_msg();
    }
}

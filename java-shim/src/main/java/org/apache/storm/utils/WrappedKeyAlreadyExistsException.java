package org.apache.storm.utils;

/**
 * A {@link org.apache.storm.generated.KeyAlreadyExistsException} whose {@link #getMessage()} is its {@code msg}
 * field (the Thrift struct's own message is null), so logs and {@code toString()} show it.
 */
public class WrappedKeyAlreadyExistsException extends org.apache.storm.generated.KeyAlreadyExistsException {
    private static final long serialVersionUID = 1L;

    public WrappedKeyAlreadyExistsException(String msg) {
        super(msg);
    }

    @Override
    public String getMessage() {
        return get_msg();
    }
}

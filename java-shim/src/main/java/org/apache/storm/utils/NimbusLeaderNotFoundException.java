package org.apache.storm.utils;

/** No Nimbus leader could be found among the seeds (thrown by the Nimbus client). */
public class NimbusLeaderNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NimbusLeaderNotFoundException() {
        super();
    }

    public NimbusLeaderNotFoundException(String msg) {
        super(msg);
    }

    public NimbusLeaderNotFoundException(String msg, Throwable cause) {
        super(msg, cause);
    }

    public NimbusLeaderNotFoundException(Throwable cause) {
        super(cause);
    }
}

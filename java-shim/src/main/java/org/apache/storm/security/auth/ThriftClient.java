package org.apache.storm.security.auth;

import dev.egret.client.nimbus.LocalNimbus;
import java.util.Map;
import org.apache.storm.thrift.protocol.TProtocol;
import org.apache.storm.thrift.transport.TTransport;

/**
 * Storm's base of its Thrift clients ({@code NimbusClient} extends it). Egret's clients hold
 * no connection between calls (each call is one request to a topology master), so there is
 * nothing to reconnect or close; the methods exist with Storm's signatures.
 *
 * <p>{@link #protocol} and {@link #transport()}: for a Nimbus connection, a Thrift binary
 * protocol over an in-JVM transport whose far end is the local cluster's Nimbus
 * ({@link LocalNimbus#protocol()}), so a {@code Nimbus.Client} made on it works; for the other
 * connection types (Egret has no supervisor or DRPC Thrift server) null, as before a connect.
 */
public class ThriftClient implements AutoCloseable {
    protected boolean retryForever;
    /** Storm: the protocol of the connection. Egret: see the class comment. */
    protected TProtocol protocol;

    private final Map<String, Object> conf;
    private final String host;
    private final Integer timeout;

    public ThriftClient(Map<String, Object> topoConf, ThriftConnectionType type, String host) {
        this(topoConf, type, host, null, null, null);
    }

    public ThriftClient(Map<String, Object> topoConf, ThriftConnectionType type, String host, Integer port,
            Integer timeout) {
        this(topoConf, type, host, port, timeout, null);
    }

    public ThriftClient(Map<String, Object> topoConf, ThriftConnectionType type, String host, Integer port,
            Integer timeout, String asUser) {
        this.conf = topoConf;
        this.host = host;
        this.timeout = timeout;
        if (type == ThriftConnectionType.NIMBUS || type == ThriftConnectionType.NIMBUS_TLS) {
            int millis = timeout == null ? LocalNimbus.DEFAULT_TIMEOUT_MILLIS : timeout;
            this.protocol = new LocalNimbus(topoConf, millis).protocol();
        }
    }

    /** Storm: the transport of the connection; Egret: {@link #protocol}'s (null without one). */
    public synchronized TTransport transport() {
        return protocol == null ? null : protocol.getTransport();
    }

    /** The config this client was made with (never null). */
    protected Map<String, Object> conf() {
        return conf == null ? Map.of() : conf;
    }

    protected String host() {
        return host;
    }

    /** The timeout given at construction, milliseconds, or null. */
    protected Integer timeout() {
        return timeout;
    }

    /** Storm: the client's TLS key. Egret's clients do not use TLS: none. */
    protected java.security.PrivateKey getPrivateKey() throws java.io.IOException {
        return null;
    }

    /** Storm: a TLS key store file. Egret's clients do not use TLS: none. */
    protected java.io.File getKeyStoreFile(String path) throws java.security.cert.CertificateException,
            java.security.KeyStoreException, java.io.IOException, java.security.NoSuchAlgorithmException {
        return null;
    }

    /** Nothing to do: no connection is held between calls. */
    public synchronized void reconnect() {
    }

    /** Nothing to release: no connection is held between calls. */
    @Override
    public synchronized void close() {
    }
}

package org.apache.storm.utils;

import dev.egret.client.nimbus.LocalNimbus;
import java.util.Map;
import org.apache.storm.generated.Nimbus;
import org.apache.storm.security.auth.ThriftClient;
import org.apache.storm.security.auth.ThriftConnectionType;
import org.apache.storm.thrift.transport.TTransportException;

/**
 * Storm's Nimbus client, answered by the local cluster's topology masters (see
 * {@link LocalNimbus}): {@code getConfiguredClient(conf).getClient()} gives a
 * {@link Nimbus.Client} whose calls each go to the topology master concerned. The Nimbus
 * host and port of the config or the builder are ignored (there is no Nimbus process);
 * {@code egret.local.dir} of the config names the cluster. The timeout, when given, bounds
 * each call (default {@value LocalNimbus#DEFAULT_TIMEOUT_MILLIS} ms), including the wait for a
 * just-submitted topology's master.
 *
 * <p>{@code getClient()} returns {@code Nimbus.Client} (what Storm 1.x jars link against) and,
 * through a bridge method, {@code Nimbus.Iface} (Storm 2.x's descriptor): jars of both link.
 */
public class NimbusClient extends ThriftClient implements NimbusClientIfaceBridge {
    /** Storm: whether the client runs against an in-process local cluster. Egret: never. */
    public final boolean isLocal;

    private final Nimbus.Client client;

    public NimbusClient(Map<String, Object> conf, String host, int port, Integer timeout)
            throws TTransportException {
        this(conf, host, port, timeout, null);
    }

    public NimbusClient(Map<String, Object> conf, String host, Integer port, Integer timeout, String asUser)
            throws TTransportException {
        this(conf, host, port, timeout, asUser, false);
    }

    public NimbusClient(Map<String, Object> conf, String host, Integer port, Integer timeout, String asUser,
            boolean useTls) throws TTransportException {
        super(conf, ThriftConnectionType.NIMBUS, host, port, timeout, asUser);
        this.isLocal = false;
        int millis = timeout == null ? LocalNimbus.DEFAULT_TIMEOUT_MILLIS : timeout;
        this.client = new Nimbus.Client(new LocalNimbus(conf, millis));
    }

    public NimbusClient(Map<String, Object> conf, String host) throws TTransportException {
        this(conf, host, null, null, null);
    }

    /** Storm: whether {@code storm.local.mode} forces an in-process cluster. Egret: never. */
    public static boolean isLocalOverride() {
        return false;
    }

    /** Runs {@code cb} with a client of the config {@link Utils#readStormConfig()} reads. */
    public static void withConfiguredClient(WithNimbus cb) throws Exception {
        withConfiguredClient(cb, Utils.readStormConfig());
    }

    public static void withConfiguredClient(WithNimbus cb, Map<String, Object> conf) throws Exception {
        try (NimbusClient client = getConfiguredClient(conf)) {
            cb.run(client.getClient());
        }
    }

    public static NimbusClient getConfiguredClient(Map<String, Object> conf) {
        return getConfiguredClientAs(conf, null, null);
    }

    public static NimbusClient getConfiguredClient(Map<String, Object> conf, Integer timeout) {
        return getConfiguredClientAs(conf, null, timeout);
    }

    public static NimbusClient getConfiguredClientAs(Map<String, Object> conf, String asUser) {
        return getConfiguredClientAs(conf, asUser, null);
    }

    public static NimbusClient getConfiguredClientAs(Map<String, Object> conf, String asUser, Integer timeout) {
        try {
            return new NimbusClient(conf, "localhost", null, timeout, asUser);
        } catch (TTransportException e) {
            // Storm wraps the failure of finding a leader in a RuntimeException too.
            throw new RuntimeException(e);
        }
    }

    /**
     * The Nimbus client. Declared with Storm 1.x's return type; the compiler adds the
     * {@code Nimbus.Iface getClient()} bridge Storm 2.x jars call (see
     * {@link NimbusClientIfaceBridge}).
     */
    @Override
    public Nimbus.Client getClient() {
        return client;
    }

    /** Storm's callback for {@link #withConfiguredClient(WithNimbus)}. */
    public interface WithNimbus {
        void run(Nimbus.Iface nimbus) throws Exception;
    }

    /** Storm 2.x's builder of a client. */
    public static class Builder {
        private final Map<String, Object> conf;
        private String asUser;
        private Integer timeout;

        private Builder(Map<String, Object> conf) {
            this.conf = conf;
        }

        public static Builder withConf(Map<String, Object> conf) {
            return new Builder(conf);
        }

        public Builder asUser(String asUser) {
            this.asUser = asUser;
            return this;
        }

        public Builder withTimeout(Integer timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Storm: a client for a daemon (no user). Egret: the same client. */
        public Builder forDaemon() {
            return this;
        }

        /** The host and port are ignored: the local cluster's topology masters answer. */
        public NimbusClient buildWithNimbusHostPort(String host, Integer port) throws TTransportException {
            return new NimbusClient(conf, host, port, timeout, asUser);
        }

        public NimbusClient build() {
            return getConfiguredClientAs(conf, asUser, timeout);
        }
    }
}

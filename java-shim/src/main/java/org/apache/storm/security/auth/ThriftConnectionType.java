package org.apache.storm.security.auth;

/**
 * Storm's kinds of Thrift connections. Egret has no Thrift servers; the constants exist so
 * that {@link ThriftClient}'s constructors have Storm's signatures.
 */
public enum ThriftConnectionType {
    NIMBUS, NIMBUS_TLS, SUPERVISOR, SUPERVISOR_TLS, DRPC, DRPC_INVOCATIONS, LOCAL_FAKE;

    public boolean isFake() {
        return this == LOCAL_FAKE;
    }
}

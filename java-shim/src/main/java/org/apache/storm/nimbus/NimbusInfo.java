package org.apache.storm.nimbus;

import java.io.Serializable;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.utils.Utils;

/**
 * A Nimbus host: host, Thrift port, TLS port and whether it leads. Egret has no Nimbus
 * process; the type exists for Storm's cluster-state API ({@code IStormClusterState}) and
 * keeps Storm's parsing ({@code host:port}, or {@code host:port:tlsPort}).
 */
public class NimbusInfo implements Serializable {
    private static final long serialVersionUID = 2161446155116099333L;

    private final String host;
    private final int port;
    private final int tlsPort;
    private boolean isLeader;

    public NimbusInfo(String host, int port, boolean isLeader) {
        this(host, port, 0, isLeader);
    }

    public NimbusInfo(String host, int port, int tlsPort, boolean isLeader) {
        if (host == null) {
            throw new NullPointerException("host");
        }
        this.host = host;
        this.port = port;
        this.tlsPort = tlsPort;
        this.isLeader = isLeader;
    }

    /** Parses {@code host:port} or {@code host:port:tlsPort}. */
    public static NimbusInfo parse(String nimbusInfo) {
        String[] parts = nimbusInfo == null ? new String[0] : nimbusInfo.split(":");
        try {
            if (parts.length == 2) {
                return new NimbusInfo(parts[0], Integer.parseInt(parts[1]), false);
            }
            if (parts.length == 3) {
                return new NimbusInfo(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), false);
            }
        } catch (NumberFormatException e) {
            // Fall through to the error below, which names the input.
        }
        throw new RuntimeException("nimbusInfo should have format of host:port or host:port:tlsPort, invalid string "
                + nimbusInfo);
    }

    /** This host's Nimbus from the config: {@code storm.local.hostname} or the local name, {@code nimbus.thrift.port}. */
    public static NimbusInfo fromConf(Map<String, Object> conf) {
        try {
            Object configured = conf.get("storm.local.hostname");
            String host = configured == null || configured.toString().isEmpty() ? Utils.localHostname() : configured.toString();
            int port = ((Number) conf.getOrDefault("nimbus.thrift.port", 6627)).intValue();
            int tlsPort = ((Number) conf.getOrDefault("nimbus.thrift.tls.port", 0)).intValue();
            return new NimbusInfo(host, port, tlsPort, false);
        } catch (UnknownHostException e) {
            throw new RuntimeException("Something wrong with network/dns config, host cant figure out its name", e);
        }
    }

    public String toHostPortString() {
        return tlsPort > 0 ? host + ":" + port + ":" + tlsPort : host + ":" + port;
    }

    public boolean isLeader() {
        return isLeader;
    }

    public void setLeader(boolean isLeader) {
        this.isLeader = isLeader;
    }

    public int getPort() {
        return port;
    }

    public int getTlsPort() {
        return tlsPort;
    }

    public String getHost() {
        return host;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NimbusInfo that && port == that.port && tlsPort == that.tlsPort && host.equals(that.host);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, port, tlsPort);
    }

    @Override
    public String toString() {
        return "NimbusInfo{host='" + host + "', port=" + port + ", tlsPort=" + tlsPort + ", isLeader=" + isLeader + "}";
    }
}

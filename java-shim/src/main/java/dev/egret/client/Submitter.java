package dev.egret.client;

import dev.egret.proto.PeerRole;
import dev.egret.proto.SubmitTopologyRequest;
import dev.egret.proto.SubmitTopologyResponse;
import dev.egret.proto.Topology;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.generated.AlreadyAliveException;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code StormSubmitter} does in Egret: merge the config, validate and capture the
 * topology, then hand it to the {@code egret jar|local} command that started this JVM over
 * its Unix socket ({@code EGRET_SUBMIT_SOCKET}, token {@code EGRET_SUBMIT_TOKEN}).
 *
 * <p>Config precedence (lowest first): {@code defaults.yaml}, {@code EGRET_CLUSTER_CONFIG},
 * the Config given by main, the {@code -c} options ({@code storm.options}).
 */
public final class Submitter {
    private static final Logger LOG = LoggerFactory.getLogger(Submitter.class);

    public static final String SOCKET_ENV = "EGRET_SUBMIT_SOCKET";
    public static final String TOKEN_ENV = "EGRET_SUBMIT_TOKEN";
    /**
     * The cap of this JVM's own client connections (submission, Nimbus client): not a topology
     * setting (those are resolved by Rust, and the egret side caps what it reads at the resolved
     * {@code egret.frame.max.bytes}); 64 MiB, the largest topology this client sends.
     */
    /** How egret's refusal of a topology name starts (contracts.md, "Submission"). */
    static final String INVALID_NAME_PREFIX = "invalid topology name";
    public static final int CLIENT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

    private Submitter() {
    }

    /** The merged config of a topology whose main passed {@code userConf}. */
    public static Map<String, Object> mergeConfig(Map<String, Object> userConf) {
        return mergeConfig(Utils.readDefaultConfig(), Utils.readEgretClusterConfig(), userConf,
                Utils.readCommandLineOpts());
    }

    /** Overlays the four config layers, later ones winning. */
    static Map<String, Object> mergeConfig(Map<String, Object> defaults, Map<String, Object> cluster,
            Map<String, Object> userConf, Map<String, Object> commandLine) {
        Map<String, Object> conf = new HashMap<>(defaults);
        conf.putAll(cluster);
        if (userConf != null) {
            conf.putAll(userConf);
        }
        conf.putAll(commandLine);
        return conf;
    }

    /**
     * Validates, captures and submits one topology.
     *
     * @return the topology id egret assigned
     */
    public static String submit(String name, Map<String, Object> userConf, StormTopology topology)
            throws AlreadyAliveException, InvalidTopologyException {
        return submitMerged(name, userConf, topology).topologyId();
    }

    /** What a submission produced: the id egret assigned and the merged config that was sent. */
    public record Submitted(String topologyId, Map<String, Object> conf) {
    }

    /** As {@link #submit(String, Map, StormTopology)}, also returning the merged config. */
    public static Submitted submitMerged(String name, Map<String, Object> userConf, StormTopology topology)
            throws AlreadyAliveException, InvalidTopologyException {
        validateJson(userConf);
        Map<String, Object> conf = mergeConfig(userConf);
        String id = send(TopologyCapture.capture(name, conf, topology));
        return new Submitted(id, conf);
    }

    /**
     * As {@link #submit(String, Map, StormTopology)}, to the egret command listening on
     * {@code socket} with {@code token} instead of the ones in the environment.
     */
    public static String submit(String name, Map<String, Object> userConf, StormTopology topology, Path socket,
            byte[] token) throws AlreadyAliveException, InvalidTopologyException {
        return send(prepare(name, userConf, topology), socket, token);
    }

    private static Topology prepare(String name, Map<String, Object> userConf, StormTopology topology)
            throws InvalidTopologyException {
        validateJson(userConf);
        Map<String, Object> conf = mergeConfig(userConf);
        return TopologyCapture.capture(name, conf, topology);
    }

    private static void validateJson(Map<String, Object> userConf) {
        if (userConf != null) {
            try {
                dev.egret.runtime.ConfigJson.validate(userConf);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Storm conf is not valid. Must be json-serializable: "
                        + e.getMessage(), e);
            }
        }
    }

    private static String send(Topology topology) throws AlreadyAliveException, InvalidTopologyException {
        String socket = System.getenv(SOCKET_ENV);
        String tokenHex = System.getenv(TOKEN_ENV);
        if (socket == null || socket.isEmpty() || tokenHex == null || tokenHex.isEmpty()) {
            throw new IllegalStateException(SOCKET_ENV + " and " + TOKEN_ENV
                    + " are not set: run the topology's main with `egret jar` or `egret local`");
        }
        return send(topology, Path.of(socket), Handshake.decodeHexToken(tokenHex));
    }

    /** Sends one captured topology over a new connection; returns the id egret assigned. */
    static String send(Topology topology, Path socket, byte[] token)
            throws AlreadyAliveException, InvalidTopologyException {
        LOG.info("Submitting topology {} to egret", topology.getName());
        SubmitTopologyResponse response;
        try (FrameChannel channel = FrameChannel.connectUnix(socket, CLIENT_MAX_FRAME_BYTES)) {
            Handshake.connect(channel, token, PeerRole.PEER_ROLE_SUBMITTER, "submitter");
            channel.write(SubmitTopologyRequest.newBuilder().setTopology(topology).build());
            response = channel.read(SubmitTopologyResponse.parser());
        } catch (IOException e) {
            throw new RuntimeException("Cannot submit topology " + topology.getName() + " to egret at " + socket
                    + ": " + e.getMessage(), e);
        }
        if (!response.getOk()) {
            String error = response.getError().isEmpty() ? "refused without a reason" : response.getError();
            if (error.contains("already running") || error.contains("already alive")) {
                throw new AlreadyAliveException(error);
            }
            if (error.startsWith(INVALID_NAME_PREFIX)) {
                // Storm's StormSubmitter refuses a bad name with IllegalArgumentException.
                throw new IllegalArgumentException(error);
            }
            throw new InvalidTopologyException(error);
        }
        LOG.info("Finished submitting topology: {} (id {})", topology.getName(), response.getTopologyId());
        return response.getTopologyId();
    }
}

package dev.egret.instance;

import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of an instance JVM (one Storm executor):
 * {@code java -cp <shim>:<user jar> dev.egret.instance.InstanceMain}, configured by the
 * environment variables EGRET_SM_SOCKET, EGRET_INSTANCE_ID and EGRET_TOPOLOGY_TOKEN.
 * Exits non-zero whenever it stops: the container supervisor restarts it.
 */
public final class InstanceMain {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceMain.class);

    private InstanceMain() {
    }

    public static void main(String[] args) {
        // User classes (components, groupings, Kryo serializers) live in the application
        // class loader beside the shim: resolve them there whatever thread asks.
        Thread.currentThread().setContextClassLoader(InstanceMain.class.getClassLoader());
        String socket = System.getenv("EGRET_SM_SOCKET");
        String instanceId = System.getenv("EGRET_INSTANCE_ID");
        String tokenHex = System.getenv("EGRET_TOPOLOGY_TOKEN");
        if (socket == null || socket.isEmpty() || instanceId == null || instanceId.isEmpty()
                || tokenHex == null || tokenHex.isEmpty()) {
            LOG.error("EGRET_SM_SOCKET, EGRET_INSTANCE_ID and EGRET_TOPOLOGY_TOKEN must all be set; exiting");
            System.exit(Instance.EXIT_BAD_SETUP);
            return;
        }
        byte[] token;
        try {
            token = Handshake.decodeHexToken(tokenHex);
        } catch (IllegalArgumentException e) {
            LOG.error("EGRET_TOPOLOGY_TOKEN is not valid: {}; exiting", e.getMessage());
            System.exit(Instance.EXIT_BAD_SETUP);
            return;
        }
        FrameChannel channel;
        try {
            channel = FrameChannel.connectUnix(Path.of(socket));
        } catch (IOException | RuntimeException e) {
            LOG.error("Could not connect instance {} to the stream manager at {}: {}; exiting",
                    instanceId, socket, e.getMessage());
            System.exit(Instance.EXIT_CONNECTION_LOST);
            return;
        }
        LOG.info("Instance {} connected to the stream manager at {}", instanceId, socket);
        int code = Instance.run(channel, token, instanceId);
        System.exit(code);
    }
}

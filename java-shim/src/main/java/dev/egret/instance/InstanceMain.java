package dev.egret.instance;

import dev.egret.runtime.TopologyClassLoader;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of an instance JVM (one Storm executor):
 * {@code java -cp <shim> -Degret.topology.classpath=<user jar> dev.egret.instance.InstanceMain}, configured by the
 * environment variables EGRET_SM_SOCKET, EGRET_INSTANCE_ID and EGRET_TOPOLOGY_TOKEN.
 * Reconnects when the stream manager restarts; exits non-zero whenever it stops (it could
 * not reach the stream manager within {@link Instance#RECONNECT_WINDOW_NANOS}, or a task
 * failed): the container supervisor restarts it.
 */
public final class InstanceMain {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceMain.class);

    private InstanceMain() {
    }

    public static void main(String[] args) {
        // User classes (components, groupings, Kryo serializers) live in the topology's class
        // loader below the shim (egret.topology.classpath): every thread resolves them there.
        try {
            TopologyClassLoader.install();
        } catch (java.io.UncheckedIOException e) {
            LOG.error("{}; exiting", e.getMessage());
            System.exit(Instance.EXIT_BAD_SETUP);
            return;
        }
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
        String capText = System.getenv(Instance.FRAME_MAX_BYTES_ENV);
        int cap;
        try {
            cap = Integer.parseInt(capText == null ? "" : capText.trim());
        } catch (NumberFormatException e) {
            cap = -1;
        }
        if (cap < FrameChannel.HELLO_MAX_BYTES) {
            LOG.error("{} must be the resolved frame cap (an integer from 4096 to 2147483647), found {}; exiting",
                    Instance.FRAME_MAX_BYTES_ENV, capText);
            System.exit(Instance.EXIT_BAD_SETUP);
            return;
        }
        final int frameCap = cap;
        Path path = Path.of(socket);
        LOG.info("Instance {} connects to the stream manager at {}", instanceId, socket);
        int code = Instance.run(() -> FrameChannel.connectUnix(path, frameCap), token, instanceId,
                Instance.RECONNECT_WINDOW_NANOS);
        System.exit(code);
    }
}

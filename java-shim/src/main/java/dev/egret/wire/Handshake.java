package dev.egret.wire;

import dev.egret.proto.Hello;
import dev.egret.proto.HelloReply;
import dev.egret.proto.PeerRole;
import dev.egret.proto.ProtocolVersion;
import com.google.protobuf.ByteString;
import java.io.IOException;

/**
 * Client side of the hello that opens every Egret connection: send
 * {@code Hello{version, token, role, peer_id}}, read the {@code HelloReply} (capped at
 * {@link FrameChannel#HELLO_MAX_BYTES}), fail unless accepted.
 */
public final class Handshake {
    /** The protocol version this build speaks (PROTOCOL_VERSION_CURRENT). */
    public static final int PROTOCOL_VERSION = ProtocolVersion.PROTOCOL_VERSION_CURRENT_VALUE;

    private Handshake() {
    }

    /**
     * Performs the client side of the handshake.
     *
     * @throws HandshakeException if the peer refused the hello or answered something else
     * @throws IOException if the connection failed
     */
    public static HelloReply connect(FrameChannel channel, byte[] token, PeerRole role, String peerId)
            throws IOException {
        Hello hello = Hello.newBuilder()
                .setProtocolVersion(PROTOCOL_VERSION)
                .setToken(ByteString.copyFrom(token))
                .setRole(role)
                .setPeerId(peerId == null ? "" : peerId)
                .build();
        channel.write(hello, FrameChannel.HELLO_MAX_BYTES);
        HelloReply reply;
        try {
            reply = channel.read(HelloReply.parser(), FrameChannel.HELLO_MAX_BYTES);
        } catch (FrameTooLargeException e) {
            throw new HandshakeException("peer answered the hello with an oversized frame", e);
        }
        if (!reply.getAccepted()) {
            String why = reply.getError().isEmpty() ? "no reason given" : reply.getError();
            throw new HandshakeException("peer refused the hello: " + why);
        }
        return reply;
    }

    /**
     * Parses a token from its hex form ({@code EGRET_*_TOKEN}, the {@code token} file).
     *
     * @throws IllegalArgumentException if the text is empty, of odd length or not hex
     */
    public static byte[] decodeHexToken(String text) {
        if (text == null) {
            throw new IllegalArgumentException("token text is missing");
        }
        String t = text.trim();
        if (t.isEmpty() || t.length() % 2 != 0) {
            throw new IllegalArgumentException("token text is not an even-length hex string");
        }
        byte[] out = new byte[t.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(t.charAt(2 * i), 16);
            int lo = Character.digit(t.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("token text is not an even-length hex string");
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return out;
    }
}

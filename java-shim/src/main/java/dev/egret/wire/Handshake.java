package dev.egret.wire;

import dev.egret.proto.Hello;
import dev.egret.proto.HelloChallenge;
import dev.egret.proto.HelloProof;
import dev.egret.proto.HelloReply;
import dev.egret.proto.PeerRole;
import dev.egret.proto.ProtocolVersion;
import com.google.protobuf.ByteString;
import com.google.protobuf.Parser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Client side of the hello that opens every Egret connection, a challenge-response in
 * which both sides prove that they hold the topology's token without sending it (the
 * same protocol as {@code egret_proto::handshake}; docs/internals/contracts.md, "The
 * hello"):
 *
 * <ol>
 *   <li>client → server {@code Hello{version, role, peer_id, client_nonce}};
 *   <li>server → client {@code HelloChallenge{server_nonce}}, or a refusal ({@code error} set);
 *   <li>client → server {@code HelloProof{client_proof}};
 *   <li>server → client {@code HelloReply{accepted, error, server_proof}}: the client fails
 *       unless accepted and the server's proof is right.
 * </ol>
 *
 * <p>Each proof is HMAC-SHA256 keyed by the token over a tag ({@link #CLIENT_PROOF_TAG} or
 * {@link #SERVER_PROOF_TAG}) and the transcript: the version and the role as 4-byte
 * big-endian numbers, the peer id's UTF-8 length (4-byte big-endian) and bytes, the
 * client's nonce, the server's nonce. Nonces are {@value #NONCE_BYTES} random bytes. Every
 * hello frame, both ways, is capped at {@link FrameChannel#HELLO_MAX_BYTES}.
 */
public final class Handshake {
    /** The protocol version this build speaks (PROTOCOL_VERSION_CURRENT). */
    public static final int PROTOCOL_VERSION = ProtocolVersion.PROTOCOL_VERSION_CURRENT_VALUE;
    /** Length of each side's nonce. */
    public static final int NONCE_BYTES = 32;
    /** Domain tag of the client's proof. */
    static final byte[] CLIENT_PROOF_TAG = "egret hello v2: client proof\0".getBytes(StandardCharsets.US_ASCII);
    /** Domain tag of the server's proof. */
    static final byte[] SERVER_PROOF_TAG = "egret hello v2: server proof\0".getBytes(StandardCharsets.US_ASCII);
    private static final String HMAC = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {
    }

    /**
     * Performs the client side of the handshake.
     *
     * @throws HandshakeException if the peer refused the hello, could not prove the token or
     *     answered something else
     * @throws IOException if the connection failed
     */
    public static HelloReply connect(FrameChannel channel, byte[] token, PeerRole role, String peerId)
            throws IOException {
        if (token == null || token.length == 0) {
            throw new HandshakeException("the token is empty");
        }
        byte[] clientNonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(clientNonce);
        Hello hello = Hello.newBuilder()
                .setProtocolVersion(PROTOCOL_VERSION)
                .setRole(role)
                .setPeerId(peerId == null ? "" : peerId)
                .setClientNonce(ByteString.copyFrom(clientNonce))
                .build();
        channel.write(hello, FrameChannel.HELLO_MAX_BYTES);

        HelloChallenge challenge = readHelloFrame(channel, HelloChallenge.parser());
        if (!challenge.getError().isEmpty()) {
            throw new HandshakeException("peer refused the hello: " + challenge.getError());
        }
        byte[] serverNonce = challenge.getServerNonce().toByteArray();
        if (serverNonce.length != NONCE_BYTES) {
            throw new HandshakeException("peer's server nonce is " + serverNonce.length + " bytes, expected "
                    + NONCE_BYTES);
        }
        channel.write(HelloProof.newBuilder()
                .setClientProof(ByteString.copyFrom(clientProof(token, hello, serverNonce)))
                .build(), FrameChannel.HELLO_MAX_BYTES);

        HelloReply reply = readHelloFrame(channel, HelloReply.parser());
        if (!reply.getAccepted()) {
            String why = reply.getError().isEmpty() ? "no reason given" : reply.getError();
            throw new HandshakeException("peer refused the hello: " + why);
        }
        if (!MessageDigest.isEqual(serverProof(token, hello, serverNonce), reply.getServerProof().toByteArray())) {
            throw new HandshakeException(
                    "peer accepted the hello without proving that it holds the topology's token");
        }
        return reply;
    }

    private static <T> T readHelloFrame(FrameChannel channel, Parser<T> parser) throws IOException {
        try {
            return channel.read(parser, FrameChannel.HELLO_MAX_BYTES);
        } catch (FrameTooLargeException e) {
            throw new HandshakeException("peer answered the hello with an oversized frame", e);
        }
    }

    /** The client's proof of {@code token} for {@code hello} and the server's nonce. */
    public static byte[] clientProof(byte[] token, Hello hello, byte[] serverNonce) {
        return proof(token, CLIENT_PROOF_TAG, hello, serverNonce);
    }

    /** The server's proof of {@code token} for {@code hello} and its own nonce. */
    public static byte[] serverProof(byte[] token, Hello hello, byte[] serverNonce) {
        return proof(token, SERVER_PROOF_TAG, hello, serverNonce);
    }

    private static byte[] proof(byte[] token, byte[] tag, Hello hello, byte[] serverNonce) {
        if (token.length == 0) {
            throw new IllegalArgumentException("the token is empty");
        }
        byte[] peerId = hello.getPeerId().getBytes(StandardCharsets.UTF_8);
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(token, HMAC));
            mac.update(tag);
            mac.update(ByteBuffer.allocate(12)
                    .putInt(hello.getProtocolVersion())
                    .putInt(hello.getRoleValue())
                    .putInt(peerId.length)
                    .array());
            mac.update(peerId);
            mac.update(hello.getClientNonce().toByteArray());
            mac.update(serverNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            // Every Java platform has HmacSHA256, and it takes a key of any non-zero length.
            throw new IllegalStateException("HMAC-SHA256 is not available: " + e.getMessage(), e);
        }
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

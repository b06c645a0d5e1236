package dev.egret.wire;

import dev.egret.proto.Hello;
import dev.egret.proto.HelloChallenge;
import dev.egret.proto.HelloProof;
import dev.egret.proto.HelloReply;
import dev.egret.proto.PeerRole;
import com.google.protobuf.ByteString;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * Test helper: the server side of the hello, as {@code egret_proto::handshake::accept} does
 * it (the Rust side is the real server; the shim is only ever a client), for the fake
 * stream managers, masters and {@code egret jar}s of the Java tests.
 */
public final class HelloServer {
    private static final SecureRandom RANDOM = new SecureRandom();

    private HelloServer() {}

    /**
     * Reads the hello, challenges it, checks the proof of {@code token} and the role; on
     * success answers accepted with the server's proof and returns the hello, otherwise
     * answers the refusal and throws.
     *
     * @throws HandshakeException when the hello was refused (the reason was sent)
     */
    public static Hello accept(FrameChannel ch, byte[] token, PeerRole role) throws IOException {
        Hello hello = ch.read(Hello.parser(), FrameChannel.HELLO_MAX_BYTES);
        if (hello.getProtocolVersion() != Handshake.PROTOCOL_VERSION) {
            throw refuse(ch, "peer speaks protocol version " + hello.getProtocolVersion()
                    + ", this build speaks " + Handshake.PROTOCOL_VERSION);
        }
        if (hello.getClientNonce().size() != Handshake.NONCE_BYTES) {
            throw refuse(ch, "peer's client nonce is " + hello.getClientNonce().size() + " bytes, expected "
                    + Handshake.NONCE_BYTES);
        }
        byte[] serverNonce = new byte[Handshake.NONCE_BYTES];
        RANDOM.nextBytes(serverNonce);
        ch.write(HelloChallenge.newBuilder().setServerNonce(ByteString.copyFrom(serverNonce)).build(),
                FrameChannel.HELLO_MAX_BYTES);
        HelloProof proof = ch.read(HelloProof.parser(), FrameChannel.HELLO_MAX_BYTES);
        if (!MessageDigest.isEqual(Handshake.clientProof(token, hello, serverNonce),
                proof.getClientProof().toByteArray())) {
            throw refuse(ch, "peer's proof of the topology's token is wrong (a wrong token)");
        }
        if (hello.getRole() != role) {
            throw refuse(ch, "peer has role " + hello.getRole() + ", expected " + role);
        }
        ch.write(HelloReply.newBuilder().setAccepted(true)
                .setServerProof(ByteString.copyFrom(Handshake.serverProof(token, hello, serverNonce))).build(),
                FrameChannel.HELLO_MAX_BYTES);
        return hello;
    }

    private static HandshakeException refuse(FrameChannel ch, String why) throws IOException {
        ch.write(HelloReply.newBuilder().setAccepted(false).setError(why).build(), FrameChannel.HELLO_MAX_BYTES);
        return new HandshakeException(why);
    }
}

/**
 * Framing and handshake shared by every Java-side Egret connection.
 *
 * <p>Invariants (the same as the Rust side, {@code egret_proto::frame} and
 * {@code egret_proto::handshake}): a frame is a 4-byte big-endian unsigned length followed
 * by that many bytes of one protobuf message; the frames of the hello (the {@code Hello},
 * {@code HelloChallenge}, {@code HelloProof} and {@code HelloReply} of {@link dev.egret.wire.Handshake}'s
 * challenge-response, which proves the token without sending it) are capped at
 * {@link dev.egret.wire.FrameChannel#HELLO_MAX_BYTES}; every later frame at the connection's configured cap. A length is checked against the
 * cap before any buffer is allocated for it.
 */
package dev.egret.wire;

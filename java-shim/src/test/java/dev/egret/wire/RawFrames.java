package dev.egret.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * Test helper: writes an already-encoded body as one frame (4-byte big-endian length, then
 * the body) straight to a channel, bypassing {@link FrameChannel}'s caps and encoding, so a
 * test can hand a reader exactly the bytes it wants (empty, large or malformed bodies).
 */
final class RawFrames {
    private RawFrames() {}

    /** Writes {@code body} as one frame on {@code channel}. */
    static void write(WritableByteChannel channel, byte[] body) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(FrameChannel.LENGTH_BYTES + body.length);
        frame.putInt(body.length).put(body).flip();
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }
}

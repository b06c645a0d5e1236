package dev.egret.instance;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;

/**
 * What {@link InboundBatch} and {@link InboundTreeEvents} share: walking the repeated entries
 * of the one message a {@code StreamManagerToInstance} frame carries, in place.
 */
final class InboundFrames {
    /** Reads one entry; the stream is at the entry's length prefix. */
    interface EntryReader {
        void read(CodedInputStream in) throws IOException;
    }

    private InboundFrames() {
    }

    /**
     * Whether the frame {@code frame[0, length)} starts with {@code tag}: the stream manager writes the one field
     * of the message's oneof and nothing else.
     */
    static boolean startsWith(byte[] frame, int length, int tag) {
        return length > 0 && (frame[0] & 0xff) == tag;
    }

    /**
     * Calls {@code reader} for each field {@code entryTag} of the message in the frame's
     * ({@code frame[0, length)})
     * field {@code messageTag}; other fields, at either level, are skipped. An
     * {@link InvalidProtocolBufferException} naming the problem when the frame is malformed.
     */
    static void readEntries(byte[] frame, int length, int messageTag, int entryTag, EntryReader reader)
            throws InvalidProtocolBufferException {
        try {
            CodedInputStream in = CodedInputStream.newInstance(frame, 0, length);
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                if (tag != messageTag) {
                    in.skipField(tag);
                    continue;
                }
                int limit = in.pushLimit(in.readRawVarint32());
                for (int t = in.readTag(); t != 0; t = in.readTag()) {
                    if (t == entryTag) {
                        reader.read(in);
                    } else {
                        in.skipField(t);
                    }
                }
                in.popLimit(limit);
            }
        } catch (InvalidProtocolBufferException e) {
            throw e;
        } catch (IOException e) {
            // An array-backed stream does no I/O: anything else is a malformed frame too.
            throw new InvalidProtocolBufferException(e);
        }
    }
}

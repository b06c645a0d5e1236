package dev.egret.instance;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.egret.proto.RootId;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.TreeEvent;
import dev.egret.proto.TreeEvents;
import java.util.Arrays;

/**
 * The tree events of one inbound frame ({@code StreamManagerToInstance} with its
 * {@code tree_events} set: the outcomes of a spout's tuple trees), read where they lie in the
 * frame's bytes, as {@link InboundBatch} reads tuples: the whole frame is checked first, then
 * the executor walks events {@code 0..size()-1}. Fields keep protobuf's meaning (unknown ones
 * skipped, a repeated scalar's last value wins, an absent field its default).
 *
 * <p>One instance per executor thread; not thread-safe.
 */
final class InboundTreeEvents {
    /** The first byte of a frame whose message is {@code TreeEvents}: field 4, length-delimited. */
    static final int TREE_EVENTS_TAG = StreamManagerToInstance.TREE_EVENTS_FIELD_NUMBER << 3
            | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int EVENT_TAG = TreeEvents.EVENTS_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;

    private int size;
    /** Reads one entry into the arrays (made once: no object per frame). */
    private final InboundFrames.EntryReader eventReader = this::readEvent;
    private int[] outcome = new int[64];
    private int[] spoutTask = new int[64];
    private long[] key = new long[64];

    /** Whether a frame holds a {@code StreamManagerToInstance} whose message is tree events. */
    static boolean carriesTreeEvents(byte[] frame) {
        return carriesTreeEvents(frame, frame.length);
    }

    /** {@link #carriesTreeEvents(byte[])} for the frame {@code frame[0, length)}. */
    static boolean carriesTreeEvents(byte[] frame, int length) {
        return InboundFrames.startsWith(frame, length, TREE_EVENTS_TAG);
    }

    /** Reads the events of {@code frame}; an error naming what is wrong, and then none is kept. */
    void read(byte[] frame) throws InvalidProtocolBufferException {
        read(frame, frame.length);
    }

    /** {@link #read(byte[])} for the frame {@code frame[0, length)}. */
    void read(byte[] frame, int length) throws InvalidProtocolBufferException {
        size = 0;
        try {
            InboundFrames.readEntries(frame, length, TREE_EVENTS_TAG, EVENT_TAG, eventReader);
        } catch (InvalidProtocolBufferException e) {
            size = 0;
            throw e;
        }
    }

    private void readEvent(CodedInputStream in) throws java.io.IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        int o = 0;
        int task = 0;
        long k = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case TreeEvent.OUTCOME_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT:
                    o = in.readEnum();
                    break;
                case TreeEvent.ROOT_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED: {
                    // A message field given twice merges: its fields' last values win.
                    int rootLimit = in.pushLimit(in.readRawVarint32());
                    for (int r = in.readTag(); r != 0; r = in.readTag()) {
                        if (r == (RootId.SPOUT_TASK_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_VARINT)) {
                            task = in.readInt32();
                        } else if (r == (RootId.KEY_FIELD_NUMBER << 3 | WireFormat.WIRETYPE_FIXED64)) {
                            k = in.readFixed64();
                        } else {
                            in.skipField(r);
                        }
                    }
                    in.popLimit(rootLimit);
                    break;
                }
                default:
                    in.skipField(tag);
                    break;
            }
        }
        in.popLimit(limit);
        if (size == outcome.length) {
            int n = size * 2;
            outcome = Arrays.copyOf(outcome, n);
            spoutTask = Arrays.copyOf(spoutTask, n);
            key = Arrays.copyOf(key, n);
        }
        outcome[size] = o;
        spoutTask[size] = task;
        key[size] = k;
        size++;
    }

    int size() {
        return size;
    }

    /** The {@code TreeOutcome} number of event {@code i}. */
    int outcome(int i) {
        return outcome[i];
    }

    int spoutTask(int i) {
        return spoutTask[i];
    }

    long key(int i) {
        return key[i];
    }
}

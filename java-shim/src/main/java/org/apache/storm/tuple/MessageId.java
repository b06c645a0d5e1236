package org.apache.storm.tuple;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The acking identity of a tuple: the root ids of the tuple trees it belongs to, each
 * with this tuple's edge id. An unanchored tuple has an empty map (printed as {@code {}}).
 */
public class MessageId {
    static final MessageId unanchoredMsgId = new MessageId(Collections.emptyMap());

    private final Map<Long, Long> anchorsToIds;

    protected MessageId(Map<Long, Long> anchorsToIds) {
        this.anchorsToIds = anchorsToIds;
    }

    public static long generateId(Random rand) {
        return rand.nextLong();
    }

    public static MessageId makeUnanchored() {
        return unanchoredMsgId;
    }

    public static MessageId makeId(Map<Long, Long> anchorsToIds) {
        return new MessageId(anchorsToIds);
    }

    public static MessageId makeRootId(long id, long val) {
        Map<Long, Long> anchorsToIds = new HashMap<>();
        anchorsToIds.put(id, val);
        return new MessageId(anchorsToIds);
    }

    public static MessageId deserialize(Input in) throws IOException {
        int count = in.readInt(true);
        if (count == 0) {
            return unanchoredMsgId;
        }
        Map<Long, Long> anchorsToIds = new HashMap<>(count * 2);
        for (int i = 0; i < count; i++) {
            anchorsToIds.put(in.readLong(), in.readLong());
        }
        return new MessageId(anchorsToIds);
    }

    public Map<Long, Long> getAnchorsToIds() {
        return anchorsToIds;
    }

    public Set<Long> getAnchors() {
        return getAnchorsToIds().keySet();
    }

    @Override
    public int hashCode() {
        return getAnchorsToIds().hashCode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MessageId && getAnchorsToIds().equals(((MessageId) other).getAnchorsToIds());
    }

    @Override
    public String toString() {
        return getAnchorsToIds().toString();
    }

    public void serialize(Output out) throws IOException {
        Map<Long, Long> ids = getAnchorsToIds();
        out.writeInt(ids.size(), true);
        for (Map.Entry<Long, Long> e : ids.entrySet()) {
            out.writeLong(e.getKey());
            out.writeLong(e.getValue());
        }
    }
}

package org.apache.storm.state;

import dev.egret.instance.StateChannel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.TopologyContext;

/**
 * Egret: where an {@link InMemoryKeyValueState} made by the default provider keeps its
 * prepared and committed copies beyond the JVM: the topology's checkpoint store, through
 * the instance's stream manager ({@link StateChannel}). A map is written entry by entry
 * (count, then each key's and value's length and bytes), each key and value serialized
 * with {@link DefaultStateSerializer} on the topology's Kryo (the map itself is never
 * handed to Kryo: in a one-worker topology Kryo would Java-serialize it, and keys such as
 * the windowed executor's are not {@code Serializable}).
 */
final class DurableBacking {
    private final StateChannel channel;
    private final int task;
    private final String namespace;
    private final DefaultStateSerializer<Object> serializer;

    private DurableBacking(StateChannel channel, int task, String namespace, Map<String, Object> topoConf,
            TopologyContext context) {
        this.channel = channel;
        this.task = task;
        this.namespace = namespace;
        this.serializer = new DefaultStateSerializer<>(topoConf, context);
    }

    /** Null outside an Egret instance JVM (or without a task): the state stays in memory. */
    static DurableBacking of(String namespace, Map<String, Object> topoConf, TopologyContext context) {
        StateChannel channel = StateChannel.current();
        if (channel == null || context == null) {
            return null;
        }
        return new DurableBacking(channel, context.getThisTaskId(), namespace, topoConf, context);
    }

    String namespace() {
        return namespace;
    }

    /** A copy restored from the store. */
    static final class Copy {
        final long txid;
        final Map<Object, Object> state;

        Copy(long txid, Map<Object, Object> state) {
            this.txid = txid;
            this.state = state;
        }
    }

    /** The committed copy (null: none) and a newer prepared one (null: none). */
    Copy[] restore() {
        StateChannel.Loaded fromCheckpoint = channel.load(task, namespace, false);
        Copy committed = null;
        Copy prepared = null;
        if (fromCheckpoint.hasCommitted) {
            committed = new Copy(fromCheckpoint.committedTxid, decode(fromCheckpoint.committed));
        } else {
            StateChannel.Loaded own = channel.load(task, namespace, true);
            if (own.hasCommitted) {
                // A commit without a txid (InMemoryKeyValueState's -1).
                committed = new Copy(-1, decode(own.committed));
            }
        }
        if (fromCheckpoint.hasPrepared) {
            prepared = new Copy(fromCheckpoint.preparedTxid, decode(fromCheckpoint.prepared));
        }
        return new Copy[] {committed, prepared};
    }

    void prepared(long txid, Map<?, ?> state) {
        channel.savePrepared(task, namespace, txid, encode(state));
    }

    void committed(long txid, Map<?, ?> state) {
        channel.saveCommitted(task, namespace, txid, encode(state));
    }

    void committedWithoutTxid(Map<?, ?> state) {
        channel.saveLocal(task, namespace, encode(state));
    }

    private byte[] encode(Map<?, ?> state) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(state.size());
            for (Map.Entry<?, ?> e : state.entrySet()) {
                byte[] key = serializer.serialize(e.getKey());
                byte[] value = serializer.serialize(e.getValue());
                out.writeInt(key.length);
                out.write(key);
                out.writeInt(value.length);
                out.write(value);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private Map<Object, Object> decode(byte[] bytes) {
        Map<Object, Object> map = new ConcurrentHashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                byte[] key = new byte[in.readInt()];
                in.readFully(key);
                byte[] value = new byte[in.readInt()];
                in.readFully(value);
                map.put(serializer.deserialize(key), serializer.deserialize(value));
            }
        } catch (IOException | NegativeArraySizeException e) {
            throw new IllegalStateException("the stored state of " + namespace + " is unreadable: " + e, e);
        }
        return map;
    }
}

package org.apache.storm.state;

import dev.egret.instance.StateChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.TopologyContext;

/**
 * Egret: where an {@link InMemoryKeyValueState} made by the default provider keeps its
 * prepared and committed copies beyond the JVM: the topology's checkpoint store, through
 * the instance's stream manager ({@link StateChannel}). The maps are serialized with
 * {@link DefaultStateSerializer} on the topology's Kryo.
 */
final class DurableBacking {
    private final StateChannel channel;
    private final int task;
    private final String namespace;
    private final DefaultStateSerializer<Map<Object, Object>> serializer;

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

    @SuppressWarnings("unchecked")
    private byte[] encode(Map<?, ?> state) {
        return serializer.serialize(new ConcurrentHashMap<>((Map<Object, Object>) state));
    }

    private Map<Object, Object> decode(byte[] bytes) {
        Map<Object, Object> map = serializer.deserialize(bytes);
        return new ConcurrentHashMap<>(map);
    }
}

package org.apache.storm.state;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import dev.egret.instance.StateChannel;
import dev.egret.instance.StateStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.serialization.SerializationFactory;
import org.apache.storm.spout.CheckPointState;
import org.apache.storm.task.TopologyContext;

/**
 * Egret: where an {@link InMemoryKeyValueState} made by the default provider keeps its
 * prepared and committed copies beyond the JVM: the topology's checkpoint store, through
 * the instance's stream manager ({@link StateChannel}). A map is written entry by entry
 * (count, then each key's and value's length and bytes), each key and value serialized
 * on the topology's Kryo, as {@link DefaultStateSerializer} would (the map itself is never
 * handed to Kryo: in a one-worker topology Kryo would Java-serialize it, and keys such as
 * the windowed executor's are not {@code Serializable}).
 *
 * <p>A delta ({@code egret.checkpoint.full.every} above 1) is written the same way, with
 * only the keys that changed, and a value length of -1 for a key deleted.
 */
final class DurableBacking {
    /** A delta's value length for a deleted key. */
    private static final int DELETED = -1;

    private final StateStore channel;
    private final int task;
    private final String namespace;
    private final Codec serializer;

    DurableBacking(StateStore channel, int task, String namespace, Map<String, Object> topoConf,
            TopologyContext context) {
        this.channel = channel;
        this.task = task;
        this.namespace = namespace;
        this.serializer = serializer(topoConf, context);
    }

    /**
     * Keys and values on the topology's Kryo, as {@link DefaultStateSerializer} makes it
     * ({@code topology.state.kryo.register} too), with the windowed executors' own key and
     * value classes registered with Kryo's field serializer: they are not
     * {@code Serializable}, and with {@code topology.fall.back.on.java.serialization} any
     * class registered or met without a serializer of its own is Java-serialized.
     */
    static Codec serializer(Map<String, Object> topoConf, TopologyContext context) {
        List<Class<?>> register = new ArrayList<>();
        for (String name : EXECUTOR_STATE_CLASSES) {
            try {
                register.add(Class.forName(name, false, DurableBacking.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("the shim lacks " + name, e);
            }
        }
        return new Codec(topoConf, register);
    }

    /** One Kryo per thread. */
    static final class Codec {
        private final ThreadLocal<Kryo> kryo;

        Codec(Map<String, Object> topoConf, List<Class<?>> fieldSerialized) {
            this.kryo = ThreadLocal.withInitial(() -> {
                Kryo k = topoConf != null ? SerializationFactory.getKryo(topoConf) : new Kryo();
                if (topoConf != null && topoConf.get("topology.state.kryo.register") != null) {
                    SerializationFactory.register(k, topoConf.get("topology.state.kryo.register"), topoConf,
                            Boolean.TRUE.equals(topoConf.get("topology.skip.missing.kryo.registrations")));
                }
                k.setRegistrationRequired(false);
                k.register(CheckPointState.class);
                k.register(CheckPointState.State.class);
                for (Class<?> c : fieldSerialized) {
                    k.register(c, new FieldSerializer<>(k, c));
                }
                return k;
            });
        }

        byte[] serialize(Object o) {
            Output output = new Output(256, -1);
            kryo.get().writeClassAndObject(output, o);
            return output.toBytes();
        }

        Object deserialize(byte[] b) {
            return kryo.get().readClassAndObject(new Input(b));
        }
    }

    private static final String[] EXECUTOR_STATE_CLASSES = {
        "org.apache.storm.topology.StatefulWindowedBoltExecutor$TaskStream",
        "org.apache.storm.topology.StatefulWindowedBoltExecutor$WindowState",
    };

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
        /** How many deltas were applied to the whole copy. */
        final int deltas;

        Copy(long txid, Map<Object, Object> state, int deltas) {
            this.txid = txid;
            this.state = state;
            this.deltas = deltas;
        }

        String describe() {
            return "txid " + txid + " (" + state.size() + " keys" + (deltas == 0 ? "" : ", a whole copy and "
                    + deltas + " delta(s)") + ")";
        }
    }

    /** The committed copy (null: none) and a newer prepared one (null: none). */
    Copy[] restore() {
        StateChannel.Loaded fromCheckpoint = channel.load(task, namespace, false);
        Copy committed = null;
        Copy prepared = null;
        if (fromCheckpoint.hasCommitted) {
            committed = new Copy(fromCheckpoint.committedTxid,
                    decode(fromCheckpoint.committed, fromCheckpoint.committedDeltas),
                    fromCheckpoint.committedDeltas.size());
        } else {
            StateChannel.Loaded own = channel.load(task, namespace, true);
            if (own.hasCommitted) {
                // A commit without a txid (InMemoryKeyValueState's -1).
                committed = new Copy(-1, decode(serializer, own.committed, namespace), 0);
            }
        }
        if (fromCheckpoint.hasPrepared) {
            prepared = new Copy(fromCheckpoint.preparedTxid,
                    decode(fromCheckpoint.prepared, fromCheckpoint.preparedDeltas),
                    fromCheckpoint.preparedDeltas.size());
        }
        return new Copy[] {committed, prepared};
    }

    /** A state staged at PREPARE, as it is stored: whole ({@code base} null) or a delta on {@code base}. */
    static final class Staged {
        final Long base;
        final byte[] bytes;

        private Staged(Long base, byte[] bytes) {
            this.base = base;
            this.bytes = bytes;
        }
    }

    /** Stores {@code state} whole as staged at PREPARE of {@code txid}. */
    Staged prepared(long txid, Map<?, ?> state) {
        Staged staged = new Staged(null, encode(serializer, state));
        channel.savePrepared(task, namespace, txid, null, staged.bytes);
        return staged;
    }

    /**
     * Stores what of {@code state} changed since this task's committed state of checkpoint
     * {@code base}: the {@code changed} keys, with their values in {@code state} (a key
     * missing there was deleted).
     */
    Staged preparedDelta(long txid, long base, Map<?, ?> state, Collection<?> changed) {
        Staged staged = new Staged(base, encodeDelta(serializer, state, changed));
        channel.savePrepared(task, namespace, txid, base, staged.bytes);
        return staged;
    }

    /** Stores at COMMIT of {@code txid} what was staged at its PREPARE. */
    void committed(long txid, Staged staged) {
        channel.saveCommitted(task, namespace, txid, staged.base, staged.bytes);
    }

    /** Stores {@code state} whole at COMMIT of {@code txid} (staged in an earlier run of the task). */
    void committed(long txid, Map<?, ?> state) {
        channel.saveCommitted(task, namespace, txid, null, encode(serializer, state));
    }

    void committedWithoutTxid(Map<?, ?> state) {
        channel.saveLocal(task, namespace, encode(serializer, state));
    }

    /** A whole state, then each delta applied in order. */
    private Map<Object, Object> decode(byte[] whole, List<byte[]> deltas) {
        Map<Object, Object> map = decode(serializer, whole, namespace);
        for (byte[] delta : deltas) {
            applyDelta(serializer, delta, map, namespace);
        }
        return map;
    }

    static byte[] encode(Codec serializer, Map<?, ?> state) {
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

    static byte[] encodeDelta(Codec serializer, Map<?, ?> state, Collection<?> changed) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(changed.size());
            for (Object k : changed) {
                byte[] key = serializer.serialize(k);
                out.writeInt(key.length);
                out.write(key);
                Object v = state.get(k);
                if (v == null) {
                    out.writeInt(DELETED);
                } else {
                    byte[] value = serializer.serialize(v);
                    out.writeInt(value.length);
                    out.write(value);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Applies a delta to {@code map}: its values put, its deleted keys removed. */
    static void applyDelta(Codec serializer, byte[] bytes, Map<Object, Object> map, String namespace) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                byte[] key = new byte[in.readInt()];
                in.readFully(key);
                int length = in.readInt();
                if (length == DELETED) {
                    map.remove(serializer.deserialize(key));
                    continue;
                }
                byte[] value = new byte[length];
                in.readFully(value);
                map.put(serializer.deserialize(key), serializer.deserialize(value));
            }
        } catch (IOException | NegativeArraySizeException e) {
            throw new IllegalStateException("a stored delta of the state of " + namespace + " is unreadable: " + e, e);
        }
    }

    static Map<Object, Object> decode(Codec serializer, byte[] bytes, String namespace) {
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

package org.apache.storm.state;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import dev.egret.instance.StateChannel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
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
 */
final class DurableBacking {
    private final StateChannel channel;
    private final int task;
    private final String namespace;
    private final Codec serializer;

    private DurableBacking(StateChannel channel, int task, String namespace, Map<String, Object> topoConf,
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
        return encode(serializer, state);
    }

    private Map<Object, Object> decode(byte[] bytes) {
        return decode(serializer, bytes, namespace);
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

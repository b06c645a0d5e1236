package org.apache.storm.state;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.storm.serialization.SerializationFactory;
import org.apache.storm.spout.CheckPointState;
import org.apache.storm.task.TopologyContext;

/**
 * Kryo serialization of state keys and values: with a configuration, the topology's Kryo
 * ({@code topology.kryo.register} and the rest) plus the classes of
 * {@code topology.state.kryo.register} and those given; without, a plain Kryo. Either way
 * {@link CheckPointState} is registered and unregistered classes are written by name.
 */
public class DefaultStateSerializer<T> implements Serializer<T> {
    private static final long serialVersionUID = 1L;

    private final Map<String, Object> topoConf;
    private final List<Class<?>> classesToRegister;
    private transient ThreadLocal<Kryo> kryo;

    public DefaultStateSerializer(Map<String, Object> topoConf, TopologyContext context, List<Class<?>> classesToRegister) {
        this.topoConf = topoConf;
        this.classesToRegister = classesToRegister == null ? new ArrayList<>() : new ArrayList<>(classesToRegister);
    }

    public DefaultStateSerializer(Map<String, Object> topoConf, TopologyContext context) {
        this(topoConf, context, Collections.emptyList());
    }

    public DefaultStateSerializer() {
        this(null, null, Collections.emptyList());
    }

    private Kryo kryo() {
        if (kryo == null) {
            kryo = ThreadLocal.withInitial(this::newKryo);
        }
        return kryo.get();
    }

    private Kryo newKryo() {
        Kryo k;
        if (topoConf != null) {
            k = SerializationFactory.getKryo(topoConf);
            Object stateRegs = topoConf.get("topology.state.kryo.register");
            if (stateRegs != null) {
                SerializationFactory.register(k, stateRegs, topoConf,
                        Boolean.TRUE.equals(topoConf.get("topology.skip.missing.kryo.registrations")));
            }
        } else {
            k = new Kryo();
        }
        k.setRegistrationRequired(false);
        k.register(CheckPointState.class);
        k.register(CheckPointState.State.class);
        for (Class<?> c : classesToRegister) {
            k.register(c);
        }
        return k;
    }

    @Override
    public byte[] serialize(T obj) {
        Output output = new Output(256, -1);
        kryo().writeClassAndObject(output, obj);
        return output.toBytes();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T deserialize(byte[] b) {
        return (T) kryo().readClassAndObject(new Input(b));
    }
}

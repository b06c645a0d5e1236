package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads values written by {@link KryoValuesSerializer} with the topology's Kryo. Not thread-safe. */
public class KryoValuesDeserializer {
    private final Kryo kryo;
    private final Input input = new Input(1);

    public KryoValuesDeserializer(Map<String, Object> conf) {
        this.kryo = SerializationFactory.getKryo(conf);
    }

    public List<Object> deserializeFrom(Input in) {
        int size = in.readInt(true);
        if (size < 0) {
            throw new IllegalArgumentException("serialized values have a negative count " + size);
        }
        List<Object> values = new ArrayList<>(Math.min(size, 1024));
        for (int i = 0; i < size; i++) {
            values.add(kryo.readClassAndObject(in));
        }
        return values;
    }

    public List<Object> deserialize(byte[] ser) {
        input.setBuffer(ser);
        return deserializeFrom(input);
    }

    public Object deserializeObject(byte[] ser) {
        input.setBuffer(ser);
        return kryo.readClassAndObject(input);
    }
}

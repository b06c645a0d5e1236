package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import java.util.List;
import java.util.Map;

/**
 * Writes a tuple's values with the topology's Kryo (the registrations, decorators and Java
 * fallback of {@link SerializationFactory#getKryo}): the count, then each value with its class.
 * Not thread-safe, like the Kryo instance it holds.
 */
public class KryoValuesSerializer {
    private final Kryo kryo;
    private final Output output = new Output(2000, 2_000_000_000);

    public KryoValuesSerializer(Map<String, Object> conf) {
        this.kryo = SerializationFactory.getKryo(conf);
    }

    public void serializeInto(List<Object> values, Output out) {
        out.writeInt(values.size(), true);
        for (Object value : values) {
            kryo.writeClassAndObject(out, value);
        }
    }

    public byte[] serialize(List<Object> values) {
        output.reset();
        serializeInto(values, output);
        return output.toBytes();
    }

    public byte[] serializeObject(Object obj) {
        output.reset();
        kryo.writeClassAndObject(output, obj);
        return output.toBytes();
    }
}

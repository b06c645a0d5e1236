package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.egret.serialization.JavaSerialization;
import java.io.IOException;

/** Kryo serializer that falls back to Java serialization (length-prefixed bytes). */
public class SerializableSerializer extends Serializer<Object> {
    public SerializableSerializer() {
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
        try {
            byte[] bytes = JavaSerialization.serialize(object);
            output.writeInt(bytes.length);
            output.writeBytes(bytes);
        } catch (IOException e) {
            throw new KryoException("Java serialization of " + object.getClass().getName() + " failed", e);
        }
    }

    @Override
    public Object read(Kryo kryo, Input input, Class c) {
        int len = input.readInt();
        if (len < 0) {
            throw new KryoException("Negative length in Java-serialized value: " + len);
        }
        byte[] bytes = input.readBytes(len);
        try {
            return JavaSerialization.deserialize(bytes);
        } catch (IOException | ClassNotFoundException e) {
            throw new KryoException("Java deserialization failed", e);
        }
    }
}

package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import java.util.Map;

/**
 * Storm's default tuple Kryo: registration required unless
 * {@code topology.fall.back.on.java.serialization} is true, no references; once the
 * registrations are done, classes without a registered serializer use Java serialization
 * (which only matters when registration is not required).
 */
public class DefaultKryoFactory implements IKryoFactory {
    public DefaultKryoFactory() {
    }

    @Override
    public Kryo getKryo(Map<String, Object> conf) {
        KryoSerializableDefault k = new KryoSerializableDefault();
        Object fallback = conf == null ? null : conf.get("topology.fall.back.on.java.serialization");
        k.setRegistrationRequired(!Boolean.TRUE.equals(fallback) && !"true".equals(String.valueOf(fallback)));
        k.setReferences(false);
        return k;
    }

    @Override
    public void preRegister(Kryo k, Map<String, Object> conf) {
    }

    @Override
    public void postRegister(Kryo k, Map<String, Object> conf) {
        if (k instanceof KryoSerializableDefault) {
            ((KryoSerializableDefault) k).overrideDefault(true);
        }
    }

    @Override
    public void postDecorate(Kryo k, Map<String, Object> conf) {
    }

    /** A Kryo whose default serializer becomes Java serialization once {@link #overrideDefault} is on. */
    public static class KryoSerializableDefault extends Kryo {
        boolean override = false;

        public KryoSerializableDefault() {
        }

        public void overrideDefault(boolean value) {
            override = value;
        }

        @Override
        public Serializer getDefaultSerializer(Class type) {
            if (override) {
                return new SerializableSerializer();
            }
            return super.getDefaultSerializer(type);
        }
    }
}

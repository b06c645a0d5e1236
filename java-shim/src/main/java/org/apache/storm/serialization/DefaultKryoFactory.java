package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import dev.egret.serialization.SingleWorkerClassResolver;
import java.io.Serializable;
import java.util.Map;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Storm's default tuple Kryo: registration required unless
 * {@code topology.fall.back.on.java.serialization} is true, no references; once the
 * registrations are done, classes without a registered serializer use Java serialization
 * (which only matters when registration is not required).
 *
 * <p>Egret addition: {@link SerializationFactory} switches a single-worker topology's Kryo
 * to {@link KryoSerializableDefault#passByReferenceMode}, where no class needs registering.
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
        /** Set for single-worker topologies; see {@link #passByReferenceMode}. */
        private boolean singleWorker = false;

        public KryoSerializableDefault() {
            super(new SingleWorkerClassResolver(), null);
        }

        /**
         * For topologies Storm would run in one JVM, passing tuples by reference: no class
         * needs registering, and an unregistered class is written by name with Java
         * serialization when it is {@link Serializable} (as Storm's own fallback does, which
         * honours writeReplace/readResolve, e.g. Guava's immutable collections), else with
         * Kryo's default serializer (which then also accepts classes without a no-arg
         * constructor). One WARN line per class says so.
         */
        void passByReferenceMode() {
            singleWorker = true;
            setRegistrationRequired(false);
            setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
            // Classes written by name are looked up where topology.kryo.register looks them up.
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            if (cl != null) {
                setClassLoader(cl);
            }
            if (getClassResolver() instanceof SingleWorkerClassResolver) {
                ((SingleWorkerClassResolver) getClassResolver()).setWarnOnImplicit(true);
            }
        }

        public void overrideDefault(boolean value) {
            override = value;
        }

        @Override
        public Serializer getDefaultSerializer(Class type) {
            if (singleWorker) {
                return Serializable.class.isAssignableFrom(type) ? new SerializableSerializer()
                        : super.getDefaultSerializer(type);
            }
            if (override) {
                return new SerializableSerializer();
            }
            return super.getDefaultSerializer(type);
        }
    }
}

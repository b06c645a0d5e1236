package org.apache.storm.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import java.lang.reflect.Constructor;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.serialization.types.ArrayListSerializer;
import org.apache.storm.serialization.types.HashMapSerializer;
import org.apache.storm.serialization.types.HashSetSerializer;
import org.apache.storm.serialization.types.ListDelegateSerializer;
import org.apache.storm.utils.ListDelegate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Kryo used for tuple values, in Storm's order: the factory
 * ({@code topology.kryo.factory}), the default registrations, service-loaded
 * {@link SerializationRegister}s, preRegister, {@code topology.kryo.register},
 * postRegister, {@code topology.kryo.decorators}, postDecorate.
 *
 * <p>Invariant: class ids are positional, so every JVM of a topology must run this with
 * the same topology configuration and the same shim; optional Storm classes are
 * registered only when present, which is the same answer in every JVM.
 */
public class SerializationFactory {
    public static final Logger LOG = LoggerFactory.getLogger(SerializationFactory.class);
    public static final ServiceLoader<SerializationRegister> loader = ServiceLoader.load(SerializationRegister.class);

    private static final String[] OPTIONAL_DEFAULTS = {
        "org.apache.storm.trident.topology.TransactionAttempt",
        "org.apache.storm.tuple.Values",
        "org.apache.storm.metric.api.IMetricsConsumer$DataPoint",
        "org.apache.storm.metric.api.IMetricsConsumer$TaskInfo",
        "org.apache.storm.trident.tuple.ConsList",
        "org.apache.storm.messaging.netty.BackPressureStatus",
        "org.apache.storm.generated.NodeInfo",
    };

    /**
     * Egret's registrations on top of Storm's defaults: the action of every checkpoint tuple
     * (stream {@code $checkpoint}, values {@code [txid, action]}), sent from the checkpoint
     * spout to every stateful bolt. Storm 2.8.3 does not register it (STORM-2531, closed Won't
     * Fix), so a Storm stateful topology spanning several workers must list it in
     * {@code topology.kryo.register}; Egret registers it so that such topologies run
     * unchanged. A topology that does list it keeps working: Kryo keeps the existing id.
     */
    private static final Class<?>[] EGRET_DEFAULTS = {
        org.apache.storm.spout.CheckPointState.Action.class,
    };

    private static final AtomicBoolean WARNED_CUSTOM_FACTORY = new AtomicBoolean();

    public SerializationFactory() {
    }

    public static Kryo getKryo(Map<String, Object> conf) {
        IKryoFactory kryoFactory = newInstance(
                stringOr(conf.get("topology.kryo.factory"), DefaultKryoFactory.class.getName()), IKryoFactory.class);
        Kryo k = kryoFactory.getKryo(conf);
        k.register(byte[].class);
        registerTupleSerializer(k, conf);
        k.register(ArrayList.class, new ArrayListSerializer());
        k.register(HashMap.class, new HashMapSerializer());
        k.register(HashSet.class, new HashSetSerializer());
        k.register(BigInteger.class, new DefaultSerializers.BigIntegerSerializer());
        for (String name : OPTIONAL_DEFAULTS) {
            registerIfPresent(k, name);
        }
        for (Class<?> c : EGRET_DEFAULTS) {
            k.register(c);
        }
        for (SerializationRegister sr : ServiceLoader.load(SerializationRegister.class, classLoader())) {
            try {
                sr.register(k);
            } catch (Exception e) {
                throw new RuntimeException("Serialization register " + sr.getClass().getName() + " failed", e);
            }
        }
        kryoFactory.preRegister(k, conf);
        boolean skipMissing = isTrue(conf.get("topology.skip.missing.kryo.registrations"));
        register(k, conf.get("topology.kryo.register"), conf, skipMissing);
        kryoFactory.postRegister(k, conf);

        Object decorators = conf.get("topology.kryo.decorators");
        if (decorators instanceof List) {
            for (Object d : (List<?>) decorators) {
                String name = String.valueOf(d);
                Class<?> c;
                try {
                    c = Class.forName(name, true, classLoader());
                } catch (ClassNotFoundException e) {
                    if (skipMissing) {
                        LOG.warn("Could not find kryo decorator named {}. Skipping registration...", name);
                        continue;
                    }
                    throw new RuntimeException("Could not find kryo decorator named " + name
                            + " (topology.kryo.decorators)", e);
                }
                newInstance(c.getName(), IKryoDecorator.class).decorate(k);
            }
        }
        kryoFactory.postDecorate(k, conf);
        if (isSingleWorker(conf)) {
            allowUnregistered(k);
        }
        return k;
    }

    /**
     * Whether Storm would run the topology in one worker JVM ({@code topology.workers} 1,
     * Storm's default), passing every tuple by reference so that it never needs a Kryo
     * registration. Egret runs each executor in its own JVM and must serialize anyway.
     */
    static boolean isSingleWorker(Map<String, Object> conf) {
        Object workers = conf.get("topology.workers");
        if (workers == null) {
            return true;
        }
        if (workers instanceof Number) {
            return ((Number) workers).intValue() == 1;
        }
        try {
            return Integer.parseInt(String.valueOf(workers).trim()) == 1;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static void allowUnregistered(Kryo k) {
        if (k instanceof DefaultKryoFactory.KryoSerializableDefault) {
            ((DefaultKryoFactory.KryoSerializableDefault) k).passByReferenceMode();
            return;
        }
        // A custom topology.kryo.factory: relax registration, keep its serializers.
        if (k.isRegistrationRequired()) {
            k.setRegistrationRequired(false);
            if (!WARNED_CUSTOM_FACTORY.getAndSet(true)) {
                LOG.warn("topology.workers is 1: Storm would pass tuples by reference, so Egret does not require"
                        + " Kryo registration; unregistered classes are serialized by class name; register them"
                        + " with topology.kryo.register for speed");
            }
        }
    }

    /** Registers the named classes with Kryo's default serializer, in order. */
    public static void register(Kryo k, List<String> classNames) {
        for (String name : classNames) {
            try {
                k.register(Class.forName(name, true, classLoader()));
            } catch (ClassNotFoundException e) {
                throw new RuntimeException("Could not find class " + name + " to register with Kryo", e);
            }
        }
    }

    /**
     * Applies {@code topology.kryo.register}: a list whose entries are class names or
     * {@code {class: serializer}} maps, or one such map.
     */
    public static void register(Kryo k, Object registrations, Map<String, Object> conf, boolean skipMissing) {
        for (Map.Entry<String, String> e : normalizeKryoRegister(registrations).entrySet()) {
            String className = e.getKey();
            String serializerName = e.getValue();
            Class<?> klass;
            Class<? extends Serializer> serializerClass = null;
            try {
                klass = Class.forName(className, true, classLoader());
                if (serializerName != null) {
                    serializerClass = Class.forName(serializerName, true, classLoader()).asSubclass(Serializer.class);
                }
            } catch (ClassNotFoundException | ClassCastException ex) {
                if (skipMissing) {
                    LOG.info("Could not find serialization or class for {}. Skipping registration...", className);
                    continue;
                }
                throw new IllegalStateException("Could not find serialization or class for " + className
                        + (serializerName == null ? "" : " (serializer " + serializerName + ")")
                        + " named in topology.kryo.register", ex);
            }
            if (serializerClass == null) {
                k.register(klass);
            } else {
                k.register(klass, resolveSerializerInstance(k, klass, serializerClass, conf));
            }
        }
    }

    private static Serializer resolveSerializerInstance(Kryo k, Class<?> superClass,
                                                        Class<? extends Serializer> serializerClass,
                                                        Map<String, Object> conf) {
        Object[][] argSets = {
            {k, superClass, conf}, {k, superClass}, {k, conf}, {k}, {superClass, conf}, {superClass}, {},
        };
        Class<?>[][] typeSets = {
            {Kryo.class, Class.class, Map.class}, {Kryo.class, Class.class}, {Kryo.class, Map.class},
            {Kryo.class}, {Class.class, Map.class}, {Class.class}, {},
        };
        for (int i = 0; i < typeSets.length; i++) {
            Constructor<? extends Serializer> ctor;
            try {
                ctor = serializerClass.getConstructor(typeSets[i]);
            } catch (NoSuchMethodException e) {
                continue;
            }
            try {
                return ctor.newInstance(argSets[i]);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("Unable to create serializer \"" + serializerClass.getName()
                        + "\" for class: " + superClass.getName(), e);
            }
        }
        throw new IllegalArgumentException("Unable to create serializer \"" + serializerClass.getName()
                + "\" for class: " + superClass.getName() + ": no usable public constructor");
    }

    private static Map<String, String> normalizeKryoRegister(Object conf) {
        // Insertion order is the registration order, hence the class ids.
        Map<String, String> ret = new LinkedHashMap<>();
        if (conf == null) {
            return ret;
        }
        if (conf instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) conf).entrySet()) {
                ret.put(String.valueOf(e.getKey()), e.getValue() == null ? null : String.valueOf(e.getValue()));
            }
            return ret;
        }
        if (conf instanceof List) {
            for (Object o : (List<?>) conf) {
                if (o instanceof Map) {
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                        ret.put(String.valueOf(e.getKey()),
                                e.getValue() == null ? null : String.valueOf(e.getValue()));
                    }
                } else if (o != null) {
                    ret.put(String.valueOf(o), null);
                }
            }
            return ret;
        }
        throw new IllegalArgumentException("topology.kryo.register must be a list or a map, not " + conf);
    }

    /** {@code ListDelegate} with the serializer {@code topology.tuple.serializer} names (Storm's default: ListDelegateSerializer). */
    @SuppressWarnings("unchecked")
    private static void registerTupleSerializer(Kryo k, Map<String, Object> conf) {
        String name = stringOr(conf.get("topology.tuple.serializer"), ListDelegateSerializer.class.getName());
        Class<?> c;
        try {
            c = Class.forName(name, true, classLoader());
        } catch (ClassNotFoundException e) {
            throw new RuntimeException("Could not find the tuple serializer " + name + " (topology.tuple.serializer)", e);
        }
        if (!Serializer.class.isAssignableFrom(c)) {
            throw new RuntimeException("topology.tuple.serializer " + name + " is not a Kryo Serializer");
        }
        k.register(ListDelegate.class, resolveSerializerInstance(k, ListDelegate.class, (Class<? extends Serializer>) c, conf));
    }

    private static void registerIfPresent(Kryo k, String className) {
        try {
            k.register(Class.forName(className, false, SerializationFactory.class.getClassLoader()));
        } catch (ClassNotFoundException | LinkageError e) {
            // Not part of this shim: skipped identically in every JVM.
        }
    }

    private static <T> T newInstance(String className, Class<T> type) {
        try {
            Class<?> c = Class.forName(className, true, classLoader());
            return type.cast(c.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new RuntimeException("Could not instantiate " + type.getSimpleName() + " " + className, e);
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : SerializationFactory.class.getClassLoader();
    }

    private static String stringOr(Object v, String dflt) {
        return v == null ? dflt : String.valueOf(v);
    }

    private static boolean isTrue(Object v) {
        return Boolean.TRUE.equals(v) || "true".equalsIgnoreCase(String.valueOf(v));
    }
}

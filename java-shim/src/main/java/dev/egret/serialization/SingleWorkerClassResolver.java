package dev.egret.serialization;

import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kryo's default class resolver, which also logs one WARN line per JVM for each class
 * written by name (implicitly registered) while {@link #setWarnOnImplicit} is on.
 *
 * <p>It is switched on only for single-worker topologies: there Storm runs every executor
 * in one JVM and passes tuples by reference, so it never needs a registration that Egret,
 * which serializes between executor JVMs, would otherwise demand. Implicit registration
 * happens only when Kryo does not require registration, so with the switch off this class
 * behaves exactly as {@link DefaultClassResolver}.
 */
public final class SingleWorkerClassResolver extends DefaultClassResolver {
    private static final Logger LOG = LoggerFactory.getLogger(SingleWorkerClassResolver.class);
    /** Class names already reported, shared by the per-thread Kryo instances of the JVM. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private volatile boolean warnOnImplicit;

    public SingleWorkerClassResolver() {
    }

    public void setWarnOnImplicit(boolean on) {
        this.warnOnImplicit = on;
    }

    @Override
    public Registration registerImplicit(Class type) {
        Registration registration = super.registerImplicit(type);
        if (warnOnImplicit && WARNED.add(type.getName())) {
            LOG.warn("Class {} is not registered with Kryo and is serialized with {}: topology.workers is 1:"
                    + " Storm would pass it by reference; Egret serializes it by class name; register it"
                    + " with topology.kryo.register for speed", type.getName(),
                    registration.getSerializer().getClass().getSimpleName());
        }
        return registration;
    }
}

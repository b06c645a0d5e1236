package org.apache.storm.utils;

import java.lang.reflect.InvocationTargetException;
import java.util.Collection;
import java.util.Map;
import org.apache.storm.Config;

/**
 * Instances of classes named in configs: a constructor taking the config {@code Map} is used
 * when the class has one and a config is given, else the no-argument constructor.
 * {@link #setInstance} replaces the implementation (tests).
 */
public class ReflectionUtils {
    private static ReflectionUtils instance = new ReflectionUtils();

    public ReflectionUtils() {
    }

    /** Makes {@code u} the implementation used; returns the previous one. */
    public static ReflectionUtils setInstance(ReflectionUtils u) {
        ReflectionUtils old = instance;
        instance = u;
        return old;
    }

    public static <T> T newInstance(String klass) {
        return newInstance(ReflectionUtils.<T>loadClass(klass));
    }

    public static <T> T newInstance(Class<T> klass) {
        return instance.newInstanceImpl(klass);
    }

    public static <T> T newInstance(String klass, Map<String, Object> conf) {
        return newInstance(ReflectionUtils.<T>loadClass(klass), conf);
    }

    public static <T> T newInstance(Class<T> klass, Map<String, Object> conf) {
        try {
            return klass.getConstructor(Map.class).newInstance(conf);
        } catch (NoSuchMethodException e) {
            return newInstance(klass);
        } catch (InvocationTargetException | InstantiationException | IllegalAccessException e) {
            throw new RuntimeException("Could not instantiate " + klass.getName(), e);
        }
    }

    /**
     * An instance of the scheduler strategy {@code className}, refused with
     * {@link DisallowedStrategyException} when {@code nimbus.scheduler.strategy.class.whitelist}
     * is set and does not list it.
     */
    public static <T> T newSchedulerStrategyInstance(String className, Map<String, Object> conf) {
        Object allowed = conf == null ? null : conf.get(Config.NIMBUS_SCHEDULER_STRATEGY_CLASS_WHITELIST);
        if (allowed instanceof Collection && !((Collection<?>) allowed).contains(className)) {
            @SuppressWarnings("unchecked")
            java.util.List<String> list = new java.util.ArrayList<>((Collection<String>) allowed);
            throw new DisallowedStrategyException(className, list);
        }
        return newInstance(className);
    }

    public <T> T newInstanceImpl(Class<T> klass) {
        try {
            return klass.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException | InvocationTargetException | InstantiationException
                 | IllegalAccessException e) {
            throw new RuntimeException("Could not instantiate " + klass.getName(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> loadClass(String name) {
        try {
            return (Class<T>) Class.forName(name, true, Thread.currentThread().getContextClassLoader() != null
                    ? Thread.currentThread().getContextClassLoader() : ReflectionUtils.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new RuntimeException("Class not found: " + name, e);
        }
    }
}

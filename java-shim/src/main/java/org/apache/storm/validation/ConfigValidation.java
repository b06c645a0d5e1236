package org.apache.storm.validation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.apache.storm.Config;

/**
 * Validates a configuration map against the annotations on the key constants of config classes
 * ({@link ConfigValidationAnnotations}): {@link org.apache.storm.Config} and every
 * {@link Validated} class registered through {@link ServiceLoader}.
 *
 * <p>Only the keys the map holds are checked; a key the map holds with a {@code null} value
 * passes every validator except {@link NotNullValidator}. A value that does not fit throws
 * {@link IllegalArgumentException} naming the key and the value.
 */
public class ConfigValidation {
    private static List<Class<?>> configClasses;

    public ConfigValidation() {
    }

    /** {@link Config} followed by the {@link Validated} classes found on the classpath. */
    public static synchronized List<Class<?>> getConfigClasses() {
        if (configClasses == null) {
            List<Class<?>> ret = new ArrayList<>();
            ret.add(Config.class);
            for (Validated v : ServiceLoader.load(Validated.class)) {
                if (!ret.contains(v.getClass())) {
                    ret.add(v.getClass());
                }
            }
            configClasses = Collections.unmodifiableList(ret);
        }
        return configClasses;
    }

    /** Validates the key declared by the field named {@code fieldName} in one of the config classes. */
    public static void validateField(String fieldName, Map<String, Object> conf) {
        validateField(fieldName, conf, getConfigClasses());
    }

    /** Validates the key declared by the field named {@code fieldName} in one of {@code configs}. */
    public static void validateField(String fieldName, Map<String, Object> conf, List<Class<?>> configs) {
        for (Class<?> c : configs) {
            Field field;
            try {
                field = c.getDeclaredField(fieldName);
            } catch (NoSuchFieldException e) {
                continue;
            }
            validateField(field, conf);
            return;
        }
        throw new IllegalArgumentException("No config class of " + configs + " declares a field " + fieldName);
    }

    /** Runs every validation annotation of {@code field} on the value {@code conf} holds for its key. */
    public static void validateField(Field field, Map<String, Object> conf) {
        Object key;
        try {
            field.setAccessible(true);
            key = field.get(null);
        } catch (IllegalAccessException | RuntimeException e) {
            throw new IllegalArgumentException("Cannot read the config key of " + field + ": " + e, e);
        }
        if (!(key instanceof String) || !conf.containsKey(key)) {
            return;
        }
        Object value = conf.get(key);
        for (Annotation annotation : field.getAnnotations()) {
            Class<?> validatorClass = validatorClassOf(annotation);
            if (validatorClass == null) {
                continue;
            }
            newValidator(validatorClass, paramsOf(annotation)).validateField((String) key, value);
        }
    }

    /** Validates a topology's configuration: the keys of {@link Config}. */
    public static void validateTopoConf(Map<String, Object> topoConf) {
        validateFields(topoConf, Collections.singletonList(Config.class));
    }

    /** Validates {@code conf} against the keys of every config class. */
    public static void validateFields(Map<String, Object> conf) {
        validateFields(conf, getConfigClasses());
    }

    /** Validates {@code conf} against the keys of {@code classes}. */
    public static void validateFields(Map<String, Object> conf, List<Class<?>> classes) {
        for (Class<?> c : classes) {
            for (Field field : c.getDeclaredFields()) {
                if (isFieldAllowed(field)) {
                    validateField(field, conf);
                }
            }
        }
    }

    /** A config key: a public static String field not marked {@link NotConf}. */
    public static boolean isFieldAllowed(Field field) {
        int mod = field.getModifiers();
        return Modifier.isPublic(mod) && Modifier.isStatic(mod) && field.getType() == String.class
                && field.getAnnotation(NotConf.class) == null;
    }

    private static Class<?> validatorClassOf(Annotation annotation) {
        Method m;
        try {
            m = annotation.annotationType().getMethod(ConfigValidationAnnotations.ValidatorParams.VALIDATOR_CLASS);
        } catch (NoSuchMethodException e) {
            return null;
        }
        try {
            Object c = m.invoke(annotation);
            return c instanceof Class && Validator.class.isAssignableFrom((Class<?>) c) ? (Class<?>) c : null;
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("Cannot read validatorClass of " + annotation, e);
        }
    }

    private static Map<String, Object> paramsOf(Annotation annotation) {
        Map<String, Object> params = new HashMap<>();
        for (Method m : annotation.annotationType().getDeclaredMethods()) {
            if (m.getParameterCount() != 0) {
                continue;
            }
            try {
                params.put(m.getName(), m.invoke(annotation));
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("Cannot read " + m.getName() + " of " + annotation, e);
            }
        }
        return params;
    }

    /** A validator of {@code cls}: through its {@code (Map)} constructor when it has one, else its no-argument one. */
    static Validator newValidator(Class<?> cls, Map<String, Object> params) {
        if (!Validator.class.isAssignableFrom(cls)) {
            throw new IllegalArgumentException(cls.getName() + " is not a " + Validator.class.getName());
        }
        try {
            try {
                Constructor<?> withParams = cls.getConstructor(Map.class);
                return (Validator) withParams.newInstance(params);
            } catch (NoSuchMethodException e) {
                return (Validator) cls.getConstructor().newInstance();
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("Cannot create the validator " + cls.getName() + ": " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot create the validator " + cls.getName()
                    + " (it needs a public no-argument or (Map) constructor): " + e, e);
        }
    }

    private static Validator newValidator(Class<?> cls) {
        return newValidator(cls, Collections.emptyMap());
    }

    static IllegalArgumentException bad(String name, Object value, String expected) {
        return new IllegalArgumentException("Field " + name + " must be " + expected + ", but was " + value
                + (value == null ? "" : " (" + value.getClass().getName() + ")"));
    }

    static boolean isIntegral(Object o) {
        return o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte
                || o instanceof BigInteger;
    }

    /** Checks the value a configuration key holds; {@code name} is the key. */
    public abstract static class Validator {
        public Validator(Map<String, Object> params) {
        }

        public Validator() {
        }

        public abstract void validateField(String name, Object o);
    }

    /** An instance of the {@code type} parameter. */
    public static class SimpleTypeValidator extends Validator {
        private final Class<?> type;

        public SimpleTypeValidator(Map<String, Object> params) {
            this.type = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.TYPE);
        }

        public static void validateField(String name, Class<?> type, Object o) {
            ConfigValidationUtils.fv(type, false).validateField(name, o);
        }

        @Override
        public void validateField(String name, Object o) {
            validateField(name, type, o);
        }
    }

    /** A boolean. */
    public static class BooleanValidator extends Validator {
        public BooleanValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            SimpleTypeValidator.validateField(name, Boolean.class, o);
        }
    }

    /** A number. */
    public static class NumberValidator extends Validator {
        public NumberValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            SimpleTypeValidator.validateField(name, Number.class, o);
        }
    }

    /** A floating-point number (a {@link Double} or {@link Float}). */
    public static class DoubleValidator extends Validator {
        public DoubleValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o != null && !(o instanceof Double) && !(o instanceof Float)) {
                throw bad(name, o, "a floating-point number");
            }
        }
    }

    /** A string, one of the {@code acceptedValues} parameter when it names any. */
    public static class StringValidator extends Validator {
        private final Set<String> acceptedValues;

        public StringValidator() {
            this.acceptedValues = Collections.emptySet();
        }

        public StringValidator(Map<String, Object> params) {
            Object accepted = params.get(ConfigValidationAnnotations.ValidatorParams.ACCEPTED_VALUES);
            Set<String> values = new HashSet<>();
            if (accepted instanceof String[]) {
                for (String v : (String[]) accepted) {
                    if (v != null && !v.isEmpty()) {
                        values.add(v);
                    }
                }
            }
            this.acceptedValues = values;
        }

        @Override
        public void validateField(String name, Object o) {
            SimpleTypeValidator.validateField(name, String.class, o);
            if (o != null && !acceptedValues.isEmpty() && !acceptedValues.contains(o)) {
                throw bad(name, o, "one of " + acceptedValues);
            }
        }
    }

    /** An integer within Java's {@code int} range (an integral number, not a floating-point one). */
    public static class IntegerValidator extends Validator {
        public IntegerValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            validateInteger(name, o);
        }

        public void validateInteger(String name, Object o) {
            if (o == null) {
                return;
            }
            if (isIntegral(o)) {
                BigInteger v = o instanceof BigInteger ? (BigInteger) o : BigInteger.valueOf(((Number) o).longValue());
                if (v.bitLength() < 32) {
                    return;
                }
            }
            throw bad(name, o, "an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE);
        }
    }

    /** An integer within Java's {@code long} range (an integral number, not a floating-point one). */
    public static class LongValidator extends Validator {
        public LongValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            validateLong(name, o);
        }

        public void validateLong(String name, Object o) {
            if (o == null) {
                return;
            }
            if (isIntegral(o) && (!(o instanceof BigInteger) || ((BigInteger) o).bitLength() < 64)) {
                return;
            }
            throw bad(name, o, "an integer between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE);
        }
    }

    /** A number above zero, or at least zero with the {@code includeZero} parameter. */
    public static class PositiveNumberValidator extends Validator {
        private final boolean includeZero;

        public PositiveNumberValidator() {
            this.includeZero = false;
        }

        public PositiveNumberValidator(Map<String, Object> params) {
            this.includeZero = Boolean.TRUE.equals(params.get(ConfigValidationAnnotations.ValidatorParams.INCLUDE_ZERO));
        }

        public static void validateField(String name, boolean includeZero, Object o) {
            if (o == null) {
                return;
            }
            if (o instanceof Number) {
                double d = ((Number) o).doubleValue();
                if (includeZero ? d >= 0 : d > 0) {
                    return;
                }
            }
            throw bad(name, o, includeZero ? "a non-negative number" : "a positive number");
        }

        @Override
        public void validateField(String name, Object o) {
            validateField(name, includeZero, o);
        }
    }

    /** A positive power of two (an integral value, whatever its number type). */
    public static class PowerOf2Validator extends Validator {
        public PowerOf2Validator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            if (o instanceof Number) {
                Number n = (Number) o;
                long l = n.longValue();
                boolean integral = isIntegral(o) || n.doubleValue() == (double) l;
                if (integral && l > 0 && (l & (l - 1)) == 0) {
                    return;
                }
            }
            throw bad(name, o, "a positive power of 2");
        }
    }

    /** A list in which no entry appears twice. */
    public static class NoDuplicateInListValidator extends Validator {
        public NoDuplicateInListValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            if (!(o instanceof Iterable)) {
                throw bad(name, o, "a list");
            }
            Set<Object> seen = new HashSet<>();
            for (Object entry : (Iterable<?>) o) {
                if (!seen.add(entry)) {
                    throw bad(name, o, "a list without duplicates (" + entry + " appears more than once)");
                }
            }
        }
    }

    /** A list whose entries are instances of the {@code type} parameter. */
    public static class ListEntryTypeValidator extends Validator {
        private final Class<?> type;

        public ListEntryTypeValidator(Map<String, Object> params) {
            this.type = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.TYPE);
        }

        public static void validateField(String name, Class<?> type, Object o) {
            ConfigValidationUtils.listFv(type, false).validateField(name, o);
        }

        @Override
        public void validateField(String name, Object o) {
            validateField(name, type, o);
        }
    }

    /** A list whose entries pass every validator of the {@code entryValidatorClasses} parameter. */
    public static class ListEntryCustomValidator extends Validator {
        private final Class<?>[] entryValidators;

        public ListEntryCustomValidator(Map<String, Object> params) {
            this.entryValidators = (Class<?>[]) params.get(ConfigValidationAnnotations.ValidatorParams.ENTRY_VALIDATOR_CLASSES);
        }

        public static void validateField(String name, Class<?>[] validators, Object o)
                throws IllegalAccessException, InstantiationException, NoSuchMethodException, InvocationTargetException {
            if (o == null) {
                return;
            }
            if (!(o instanceof Iterable)) {
                throw bad(name, o, "a list");
            }
            List<Validator> vs = new ArrayList<>();
            for (Class<?> c : validators) {
                vs.add(newValidator(c));
            }
            for (Object entry : (Iterable<?>) o) {
                for (Validator v : vs) {
                    v.validateField("each entry of " + name, entry);
                }
            }
        }

        @Override
        public void validateField(String name, Object o) {
            try {
                validateField(name, entryValidators, o);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A map whose keys and values are instances of the {@code keyType} and {@code valueType} parameters. */
    public static class MapEntryTypeValidator extends Validator {
        private final Class<?> keyType;
        private final Class<?> valueType;

        public MapEntryTypeValidator(Map<String, Object> params) {
            this.keyType = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.KEY_TYPE);
            this.valueType = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.VALUE_TYPE);
        }

        public static void validateField(String name, Class<?> keyType, Class<?> valueType, Object o) {
            ConfigValidationUtils.mapFv(keyType, valueType, false).validateField(name, o);
        }

        @Override
        public void validateField(String name, Object o) {
            validateField(name, keyType, valueType, o);
        }
    }

    /** A map whose keys pass the {@code keyValidatorClasses} parameter and values the {@code valueValidatorClasses} one. */
    public static class MapEntryCustomValidator extends Validator {
        private final Class<?>[] keyValidators;
        private final Class<?>[] valueValidators;

        public MapEntryCustomValidator(Map<String, Object> params) {
            this.keyValidators = (Class<?>[]) params.get(ConfigValidationAnnotations.ValidatorParams.KEY_VALIDATOR_CLASSES);
            this.valueValidators = (Class<?>[]) params.get(ConfigValidationAnnotations.ValidatorParams.VALUE_VALIDATOR_CLASSES);
        }

        public static void validateField(String name, Class<?>[] keyValidators, Class<?>[] valueValidators, Object o)
                throws IllegalAccessException, InstantiationException, NoSuchMethodException, InvocationTargetException {
            if (o == null) {
                return;
            }
            if (!(o instanceof Map)) {
                throw bad(name, o, "a map");
            }
            List<Validator> ks = new ArrayList<>();
            for (Class<?> c : keyValidators) {
                ks.add(newValidator(c));
            }
            List<Validator> vs = new ArrayList<>();
            for (Class<?> c : valueValidators) {
                vs.add(newValidator(c));
            }
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                for (Validator k : ks) {
                    k.validateField("each key of " + name, e.getKey());
                }
                for (Validator v : vs) {
                    v.validateField("each value of " + name, e.getValue());
                }
            }
        }

        @Override
        public void validateField(String name, Object o) {
            try {
                validateField(name, keyValidators, valueValidators, o);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A string or a list of strings. */
    public static class StringOrStringListValidator extends Validator {
        public StringOrStringListValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null || o instanceof String) {
                return;
            }
            try {
                ConfigValidationUtils.listFv(String.class, false).validateField(name, o);
            } catch (IllegalArgumentException e) {
                throw bad(name, o, "a string or a list of strings");
            }
        }
    }

    /** Kryo registrations: a list of class names and maps from a class name to its serializer's class name. */
    public static class KryoRegValidator extends Validator {
        public KryoRegValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            if (!(o instanceof Iterable)) {
                throw bad(name, o, "a list of class names and {class name: serializer class name} maps");
            }
            for (Object entry : (Iterable<?>) o) {
                if (entry instanceof String) {
                    continue;
                }
                if (entry instanceof Map) {
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) entry).entrySet()) {
                        if (!(e.getKey() instanceof String) || !(e.getValue() instanceof String)) {
                            throw bad(name, o, "a list of class names and {class name: serializer class name} maps"
                                    + " (the entry " + entry + " maps to a non-string)");
                        }
                    }
                    continue;
                }
                throw bad(name, o, "a list of class names and {class name: serializer class name} maps"
                        + " (the entry " + entry + " is neither)");
            }
        }
    }

    /** An impersonation ACL entry: a map with the lists of strings {@code hosts} and {@code groups}. */
    public static class ImpersonationAclUserEntryValidator extends Validator {
        public ImpersonationAclUserEntryValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            ConfigValidationUtils.mapFv(ConfigValidationUtils.fv(String.class, false),
                    ConfigValidationUtils.listFv(String.class, false), false).validateField(name, o);
            Map<?, ?> m = (Map<?, ?>) o;
            if (!m.containsKey("hosts") || !m.containsKey("groups")) {
                throw bad(name, o, "a map with both \"hosts\" and \"groups\" (lists of strings)");
            }
        }
    }

    /** A user's resource pool: a map with the numbers {@code cpu} and {@code memory}. */
    public static class UserResourcePoolEntryValidator extends Validator {
        public UserResourcePoolEntryValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            ConfigValidationUtils.mapFv(String.class, Number.class, false).validateField(name, o);
            Map<?, ?> m = (Map<?, ?>) o;
            if (!m.containsKey("cpu") || !m.containsKey("memory")) {
                throw bad(name, o, "a map with both \"cpu\" and \"memory\" (numbers)");
            }
        }
    }

    /** The name of a class that implements or extends the {@code implementsClass} parameter. */
    public static class ImplementsClassValidator extends Validator {
        Class<?> classImplements;

        public ImplementsClassValidator(Map<String, Object> params) {
            this.classImplements = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.IMPLEMENTS_CLASS);
        }

        @Override
        public void validateField(String name, Object o) {
            checkClassName(name, classImplements, o, "implements or extends");
        }
    }

    static void checkClassName(String name, Class<?> base, Object o, String relation) {
        if (o == null) {
            return;
        }
        SimpleTypeValidator.validateField(name, String.class, o);
        Class<?> cls;
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            cls = Class.forName((String) o, false, cl != null ? cl : ConfigValidation.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw bad(name, o, "the name of a class that " + relation + " " + base.getName()
                    + " (no such class on the classpath)");
        }
        if (!base.isAssignableFrom(cls)) {
            throw bad(name, o, "the name of a class that " + relation + " " + base.getName());
        }
    }

    /** The name of a class derived from the {@code baseType} parameter. */
    public static class DerivedTypeValidator extends Validator {
        private final Class<?> baseType;

        public DerivedTypeValidator(Map<String, Object> params) {
            this.baseType = (Class<?>) params.get(ConfigValidationAnnotations.ValidatorParams.BASE_TYPE);
        }

        public static void validateField(String name, Class<?> baseType, Object o) {
            checkClassName(name, baseType, o, "derives from");
        }

        @Override
        public void validateField(String name, Object o) {
            validateField(name, baseType, o);
        }
    }

    /** Not null. */
    public static class NotNullValidator extends Validator {
        public NotNullValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                throw new IllegalArgumentException("Field " + name + " must not be null");
            }
        }
    }

    /** {@code pacemaker.auth.method}: NONE, DIGEST or KERBEROS. */
    public static class PacemakerAuthTypeValidator extends Validator {
        private static final List<String> METHODS = Arrays.asList("NONE", "DIGEST", "KERBEROS");

        public PacemakerAuthTypeValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (!(o instanceof String) || !METHODS.contains(o)) {
                throw bad(name, o, "one of " + METHODS);
            }
        }
    }

    static void registryEntry(String name, Object entry, String what) {
        if (!(entry instanceof Map)) {
            throw bad(name, entry, what + " (a map with a \"class\" name)");
        }
        Object cls = ((Map<?, ?>) entry).get("class");
        if (!(cls instanceof String)) {
            throw bad(name, entry, what + " (a map with a \"class\" name)");
        }
    }

    /** An entry of {@code topology.metrics.consumer.register}: a map with a {@code class}, optionally a {@code parallelism.hint}. */
    public static class MetricRegistryValidator extends Validator {
        public MetricRegistryValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            registryEntry(name, o, "a metrics consumer registration");
            Object hint = ((Map<?, ?>) o).get("parallelism.hint");
            if (hint != null) {
                new IntegerValidator().validateField(name + " parallelism.hint", hint);
                PositiveNumberValidator.validateField(name + " parallelism.hint", false, hint);
            }
        }
    }

    /** An entry of {@code storm.cluster.metrics.consumer.register}: a map with a {@code class}. */
    public static class ClusterMetricRegistryValidator extends Validator {
        public ClusterMetricRegistryValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            registryEntry(name, o, "a cluster metrics consumer registration");
        }
    }

    /** An entry of {@code topology.metrics.reporters}: a map with a {@code class}, optionally a {@code filter} map with one. */
    public static class MetricReportersValidator extends Validator {
        public MetricReportersValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            registryEntry(name, o, "a metrics reporter");
            Object filter = ((Map<?, ?>) o).get("filter");
            if (filter != null) {
                registryEntry(name + " filter", filter, "a metrics filter");
            }
        }
    }

    /** An entry of {@code topology.event.logger.register}: a map with a {@code class}, optionally an {@code arguments} map. */
    public static class EventLoggerRegistryValidator extends Validator {
        public EventLoggerRegistryValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            registryEntry(name, o, "an event logger registration");
            Object args = ((Map<?, ?>) o).get("arguments");
            if (args != null && !(args instanceof Map)) {
                throw bad(name + " arguments", args, "a map");
            }
        }
    }

    /** A map from strings to maps from strings to anything. */
    public static class MapOfStringToMapOfStringToObjectValidator extends Validator {
        public MapOfStringToMapOfStringToObjectValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            ConfigValidationUtils.mapFv(ConfigValidationUtils.fv(String.class, false),
                    ConfigValidationUtils.mapFv(String.class, Object.class, true), false).validateField(name, o);
        }
    }

    /** A list of lists of strings. */
    public static class ListOfListOfStringValidator extends Validator {
        public ListOfListOfStringValidator() {
        }

        @Override
        public void validateField(String name, Object o) throws IllegalArgumentException {
            ConfigValidationUtils.listFv(ConfigValidationUtils.listFv(String.class, true), false).validateField(name, o);
        }
    }

    /**
     * Resource-aware scheduling constraints: a map from a component to a map with
     * {@value #CONSTRAINT_TYPE_MAX_NODE_CO_LOCATION_CNT} (a non-negative integer) and/or
     * {@value #CONSTRAINT_TYPE_INCOMPATIBLE_COMPONENTS} (a component or a list of components).
     */
    public static class RasConstraintsTypeValidator extends Validator {
        public static final String CONSTRAINT_TYPE_MAX_NODE_CO_LOCATION_CNT = "maxNodeCoLocationCnt";
        public static final String CONSTRAINT_TYPE_INCOMPATIBLE_COMPONENTS = "incompatibleComponents";

        public RasConstraintsTypeValidator() {
        }

        @Override
        public void validateField(String name, Object o) {
            if (o == null) {
                return;
            }
            if (!(o instanceof Map)) {
                throw bad(name, o, "a map from a component to its constraints");
            }
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                if (!(e.getKey() instanceof String)) {
                    throw bad(name, o, "a map from a component name to its constraints (key " + e.getKey() + ")");
                }
                if (!(e.getValue() instanceof Map)) {
                    throw bad(name, o, "a map from a component to a map of its constraints (" + e.getKey()
                            + " maps to " + e.getValue() + ")");
                }
                for (Map.Entry<?, ?> c : ((Map<?, ?>) e.getValue()).entrySet()) {
                    String where = name + " " + e.getKey() + "." + c.getKey();
                    if (CONSTRAINT_TYPE_MAX_NODE_CO_LOCATION_CNT.equals(c.getKey())) {
                        new IntegerValidator().validateField(where, c.getValue());
                        PositiveNumberValidator.validateField(where, true, c.getValue());
                    } else if (CONSTRAINT_TYPE_INCOMPATIBLE_COMPONENTS.equals(c.getKey())) {
                        new StringOrStringListValidator().validateField(where, c.getValue());
                    } else {
                        throw bad(where, c.getKey(), "the constraint " + CONSTRAINT_TYPE_MAX_NODE_CO_LOCATION_CNT
                                + " or " + CONSTRAINT_TYPE_INCOMPATIBLE_COMPONENTS);
                    }
                }
            }
        }
    }

    /** Passes exactly one of the validators of the {@code valueValidatorClasses} parameter. */
    public static class CustomIsExactlyOneOfValidators extends Validator {
        private final Class<?>[] validators;

        public CustomIsExactlyOneOfValidators(Map<String, Object> params) {
            this.validators = (Class<?>[]) params.get(ConfigValidationAnnotations.ValidatorParams.VALUE_VALIDATOR_CLASSES);
        }

        @Override
        public void validateField(String name, Object o) {
            List<String> passed = new ArrayList<>();
            List<String> failures = new ArrayList<>();
            for (Class<?> c : validators) {
                try {
                    newValidator(c).validateField(name, o);
                    passed.add(c.getSimpleName());
                } catch (IllegalArgumentException e) {
                    failures.add(e.getMessage());
                }
            }
            if (passed.size() != 1) {
                throw new IllegalArgumentException("Field " + name + " must pass exactly one of "
                        + Arrays.toString(Arrays.stream(validators).map(Class::getSimpleName).toArray())
                        + ", but " + (passed.isEmpty() ? "none did: " + failures : "these all did: " + passed)
                        + " (value " + o + ")");
            }
        }
    }
}

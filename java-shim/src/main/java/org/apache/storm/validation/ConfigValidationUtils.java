package org.apache.storm.validation;

import java.util.Map;

/**
 * Building blocks for validators: type checks that nest (a list of X, a map from X to Y), each
 * naming the key and, inside a list or map, the entry that failed.
 */
public class ConfigValidationUtils {
    public ConfigValidationUtils() {
    }

    /** Checks one value; throws {@link IllegalArgumentException} naming the key when it does not fit. */
    public interface FieldValidator {
        void validateField(String name, Object field) throws IllegalArgumentException;
    }

    /** A validator that can sit inside another: {@code pd} is the text naming where the value sits. */
    public abstract static class NestableFieldValidator implements FieldValidator {
        public NestableFieldValidator() {
        }

        @Override
        public void validateField(String name, Object field) throws IllegalArgumentException {
            validateField(null, name, field);
        }

        public abstract void validateField(String pd, String name, Object field) throws IllegalArgumentException;
    }

    static String where(String pd, String name) {
        return pd == null ? "Field " + name : pd + name;
    }

    /** The value is an instance of {@code cls}; null passes unless {@code notNull}. */
    @SuppressWarnings("rawtypes")
    public static NestableFieldValidator fv(final Class cls, final boolean notNull) {
        return new NestableFieldValidator() {
            @Override
            public void validateField(String pd, String name, Object field) {
                if (field == null) {
                    if (notNull) {
                        throw new IllegalArgumentException(where(pd, name) + " must not be null");
                    }
                    return;
                }
                if (!cls.isInstance(field)) {
                    throw new IllegalArgumentException(where(pd, name) + " must be of type " + cls.getName()
                            + ", but was " + field + " (" + field.getClass().getName() + ")");
                }
            }
        };
    }

    /** The value is a list (any {@link Iterable}) whose entries are instances of {@code cls}. */
    @SuppressWarnings("rawtypes")
    public static NestableFieldValidator listFv(Class cls, boolean notNull) {
        return listFv(fv(cls, false), notNull);
    }

    /** The value is a list (any {@link Iterable}) whose entries pass {@code validator}. */
    public static NestableFieldValidator listFv(final NestableFieldValidator validator, final boolean notNull) {
        return new NestableFieldValidator() {
            @Override
            public void validateField(String pd, String name, Object field) {
                if (field == null) {
                    if (notNull) {
                        throw new IllegalArgumentException(where(pd, name) + " must not be null");
                    }
                    return;
                }
                if (!(field instanceof Iterable)) {
                    throw new IllegalArgumentException(where(pd, name) + " must be a list, but was " + field
                            + " (" + field.getClass().getName() + ")");
                }
                for (Object entry : (Iterable<?>) field) {
                    validator.validateField("Each element of the list " + where(pd, name) + " ", "", entry);
                }
            }
        };
    }

    /** The value is a map whose keys and values are instances of {@code key} and {@code val}. */
    @SuppressWarnings("rawtypes")
    public static NestableFieldValidator mapFv(Class key, Class val, boolean notNull) {
        return mapFv(fv(key, false), fv(val, false), notNull);
    }

    /** The value is a map whose keys pass {@code key} and values {@code val}. */
    public static NestableFieldValidator mapFv(final NestableFieldValidator key, final NestableFieldValidator val,
                                               final boolean notNull) {
        return new NestableFieldValidator() {
            @Override
            public void validateField(String pd, String name, Object field) {
                if (field == null) {
                    if (notNull) {
                        throw new IllegalArgumentException(where(pd, name) + " must not be null");
                    }
                    return;
                }
                if (!(field instanceof Map)) {
                    throw new IllegalArgumentException(where(pd, name) + " must be a map, but was " + field
                            + " (" + field.getClass().getName() + ")");
                }
                for (Map.Entry<?, ?> e : ((Map<?, ?>) field).entrySet()) {
                    key.validateField("Each key of the map " + where(pd, name) + " ", "", e.getKey());
                    val.validateField("Each value of the map " + where(pd, name) + " ", "", e.getValue());
                }
            }
        };
    }
}

package org.apache.storm.validation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code public static final String} of a config class that is not a configuration key
 * ({@link ConfigValidation#isFieldAllowed(java.lang.reflect.Field)} skips it).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface NotConf {
}

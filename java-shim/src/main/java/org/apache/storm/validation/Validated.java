package org.apache.storm.validation;

/**
 * A class of configuration keys besides {@link org.apache.storm.Config}: an implementation listed
 * in {@code META-INF/services/org.apache.storm.validation.Validated} joins
 * {@link ConfigValidation#getConfigClasses()}, so its annotated keys are validated too.
 */
public interface Validated {
}

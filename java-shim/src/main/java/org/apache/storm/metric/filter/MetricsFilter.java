package org.apache.storm.metric.filter;

import java.io.Serializable;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.shade.com.google.common.base.Predicate;

/**
 * Decides which data points a metrics consumer sees ({@code apply} true: keep). It is a Guava
 * {@code Predicate} as relocated in storm-shaded-deps, so using it needs storm-shaded-deps on the
 * classpath, as Storm's workers have it.
 */
public interface MetricsFilter extends Predicate<IMetricsConsumer.DataPoint>, Serializable {
}

package org.apache.storm.metric.util;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a data point whose value is a map into one data point per entry, named
 * {@code name + separator + key} (when {@code expandMapType}; otherwise points pass unchanged).
 * A point with a null value is dropped when expanding.
 */
public class DataPointExpander implements Serializable {
    public static final Logger LOG = LoggerFactory.getLogger(DataPointExpander.class);
    private static final long serialVersionUID = 1L;

    private final boolean expandMapType;
    private final String metricNameSeparator;

    public DataPointExpander(boolean expandMapType, String metricNameSeparator) {
        this.expandMapType = expandMapType;
        this.metricNameSeparator = metricNameSeparator;
    }

    public Collection<IMetricsConsumer.DataPoint> expandDataPoints(Collection<IMetricsConsumer.DataPoint> dataPoints) {
        if (!expandMapType) {
            return dataPoints;
        }
        Collection<IMetricsConsumer.DataPoint> ret = new ArrayList<>();
        for (IMetricsConsumer.DataPoint point : dataPoints) {
            ret.addAll(expandDataPoint(point));
        }
        return ret;
    }

    public Collection<IMetricsConsumer.DataPoint> expandDataPoint(IMetricsConsumer.DataPoint dataPoint) {
        if (!expandMapType) {
            return Collections.singletonList(dataPoint);
        }
        if (dataPoint.value == null) {
            LOG.debug("Dropping the data point {}: its value is null", dataPoint.name);
            return Collections.emptyList();
        }
        if (!(dataPoint.value instanceof Map)) {
            return Collections.singletonList(dataPoint);
        }
        Collection<IMetricsConsumer.DataPoint> ret = new ArrayList<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) dataPoint.value).entrySet()) {
            ret.add(new IMetricsConsumer.DataPoint(dataPoint.name + metricNameSeparator + e.getKey(), e.getValue()));
        }
        return ret;
    }
}

package org.apache.storm.metric.api;

import java.util.Collections;
import java.util.Map;

/**
 * A metric of the v1 API: read and reset once per time bucket by the task that registered
 * it ({@code TopologyContext.registerMetric}); a null value is not reported.
 */
public interface IMetric {
    /** The value accumulated since the previous call, which starts a new bucket. */
    Object getValueAndReset();

    /** Dimensions reported with every data point of this metric; none by default. */
    default Map<String, String> getDimensions() {
        return Collections.emptyMap();
    }
}

package org.apache.storm.networktopography;

import java.util.List;
import java.util.Map;

/**
 * Resolves host names to network locations (racks), as named by {@code storm.network.topography.plugin}.
 * Egret's scheduler places a topology on one machine's local cluster and does not consult it.
 */
public interface DNSToSwitchMapping {
    String DEFAULT_RACK = "/default-rack";

    /** The rack of each of {@code names} (host names or IP addresses), keyed by name. */
    Map<String, String> resolve(List<String> names);
}

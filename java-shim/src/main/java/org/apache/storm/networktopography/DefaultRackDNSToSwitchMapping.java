package org.apache.storm.networktopography;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Puts every host on {@link #DEFAULT_RACK} (the default of {@code storm.network.topography.plugin}). */
public final class DefaultRackDNSToSwitchMapping extends AbstractDNSToSwitchMapping {
    private final Map<String, String> resolved = new ConcurrentHashMap<>();

    public DefaultRackDNSToSwitchMapping() {
    }

    @Override
    public Map<String, String> resolve(List<String> names) {
        Map<String, String> ret = new HashMap<>();
        for (String name : names) {
            ret.put(name, DEFAULT_RACK);
            resolved.put(name, DEFAULT_RACK);
        }
        return ret;
    }

    @Override
    public Map<String, String> getSwitchMap() {
        return new HashMap<>(resolved);
    }

    @Override
    public String toString() {
        return "DefaultRackDNSToSwitchMapping (all hosts on " + DEFAULT_RACK + ")";
    }
}

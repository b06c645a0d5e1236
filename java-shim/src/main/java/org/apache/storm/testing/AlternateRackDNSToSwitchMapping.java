package org.apache.storm.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.networktopography.AbstractDNSToSwitchMapping;

/**
 * A rack mapping for scheduling tests: the hosts, in sorted order, go alternately to
 * {@code RACK1} and {@code RACK2}.
 */
public final class AlternateRackDNSToSwitchMapping extends AbstractDNSToSwitchMapping {
    private final Map<String, String> mappingCache = new ConcurrentHashMap<>();

    public AlternateRackDNSToSwitchMapping() {
    }

    @Override
    public Map<String, String> resolve(List<String> names) {
        Map<String, String> ret = new HashMap<>();
        boolean odd = true;
        for (String name : new TreeSet<>(names)) {
            String rack = odd ? "RACK1" : "RACK2";
            ret.put(name, rack);
            mappingCache.put(name, rack);
            odd = !odd;
        }
        return ret;
    }

    @Override
    public String toString() {
        return "defaultRackDNSToSwitchMapping (" + mappingCache.size() + " mappings cached)" + dumpTopology();
    }
}

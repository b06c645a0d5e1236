package org.apache.storm.networktopography;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** Base of the mappings that can show what they resolved so far. */
public abstract class AbstractDNSToSwitchMapping implements DNSToSwitchMapping {
    protected AbstractDNSToSwitchMapping() {
    }

    /** True when every host resolved so far is on one rack (false when the mapping keeps no record). */
    public boolean isSingleSwitch() {
        Map<String, String> map = getSwitchMap();
        return map != null && new TreeSet<>(map.values()).size() <= 1;
    }

    /** The hosts resolved so far and their racks, or null when the mapping keeps no record. */
    public Map<String, String> getSwitchMap() {
        return null;
    }

    /** A readable description of the racks and their hosts. */
    public String dumpTopology() {
        Map<String, String> map = getSwitchMap();
        StringBuilder sb = new StringBuilder("Mapping: ").append(this).append('\n');
        if (map == null) {
            sb.append("No topology information");
            return sb.toString();
        }
        Map<String, TreeSet<String>> racks = new TreeMap<>();
        for (Map.Entry<String, String> e : map.entrySet()) {
            racks.computeIfAbsent(e.getValue(), k -> new TreeSet<>()).add(e.getKey());
        }
        sb.append("Map:\n");
        for (Map.Entry<String, TreeSet<String>> e : racks.entrySet()) {
            sb.append("  ").append(e.getKey()).append(':');
            for (String host : e.getValue()) {
                sb.append(' ').append(host);
            }
            sb.append('\n');
        }
        sb.append("Nodes: ").append(map.size()).append('\n');
        sb.append("Switches: ").append(racks.size()).append('\n');
        return sb.toString();
    }
}

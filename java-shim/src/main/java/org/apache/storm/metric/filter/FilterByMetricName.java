package org.apache.storm.metric.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.storm.metric.api.IMetricsConsumer;

/**
 * Keeps the data points whose name matches one of the whitelist's regular expressions (found
 * anywhere in the name), or drops those matching one of the blacklist's; a filter takes one list
 * or the other (both is an error), and with neither keeps everything. Results are cached by name.
 */
public class FilterByMetricName implements MetricsFilter {
    private static final int MAX_CACHED = 1000;

    private final Map<String, Boolean> filterCache = new ConcurrentHashMap<>();
    private final List<Pattern> whitelistPattern;
    private final List<Pattern> blacklistPattern;
    private boolean noneSpecified = false;

    public FilterByMetricName(List<String> whitelistPattern, List<String> blacklistPattern) {
        boolean white = whitelistPattern != null && !whitelistPattern.isEmpty();
        boolean black = blacklistPattern != null && !blacklistPattern.isEmpty();
        if (white && black) {
            throw new IllegalArgumentException("You have to specify either includes or excludes, or none.");
        }
        this.whitelistPattern = compile(whitelistPattern);
        this.blacklistPattern = compile(blacklistPattern);
        this.noneSpecified = !white && !black;
    }

    private static List<Pattern> compile(List<String> patterns) {
        List<Pattern> ret = new ArrayList<>();
        if (patterns != null) {
            for (String p : patterns) {
                ret.add(Pattern.compile(p));
            }
        }
        return ret;
    }

    @Override
    public boolean apply(IMetricsConsumer.DataPoint dataPoint) {
        if (noneSpecified) {
            return true;
        }
        String name = dataPoint.name;
        Boolean cached = filterCache.get(name);
        if (cached != null) {
            return cached;
        }
        boolean ret = whitelistPattern.isEmpty() ? !matchesAny(name, blacklistPattern) : matchesAny(name, whitelistPattern);
        if (filterCache.size() < MAX_CACHED) {
            filterCache.put(name, ret);
        }
        return ret;
    }

    private static boolean matchesAny(String name, List<Pattern> patterns) {
        for (Pattern p : patterns) {
            if (p.matcher(name).find()) {
                return true;
            }
        }
        return false;
    }
}

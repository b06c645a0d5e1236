package org.apache.storm.utils;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Helpers about tuples: tick detection and the fields-grouping task choice. */
public final class TupleUtils {
    private static final Logger LOG = LoggerFactory.getLogger(TupleUtils.class);

    private TupleUtils() {
    }

    /** True for the system tick tuples ({@code __system}/{@code __tick}). */
    public static boolean isTick(Tuple tuple) {
        return tuple != null
                && "__system".equals(tuple.getSourceComponent())
                && "__tick".equals(tuple.getSourceStreamId());
    }

    /** The index among {@code numTasks} sorted tasks that a fields grouping sends these key values to. */
    public static <T> int chooseTaskIndex(List<T> keys, int numTasks) {
        return Math.floorMod(listHashCode(keys), numTasks);
    }

    private static <T> int listHashCode(List<T> alist) {
        if (alist == null) {
            return 1;
        }
        return Arrays.deepHashCode(alist.toArray());
    }

    public static Map<String, Object> putTickFrequencyIntoComponentConfig(Map<String, Object> conf,
                                                                           int tickFreqSecs) {
        if (conf == null) {
            conf = new HashMap<>();
        }
        if (tickFreqSecs > 0) {
            LOG.info("Enabling tick tuple with interval [{}]", tickFreqSecs);
            conf.put("topology.tick.tuple.freq.secs", tickFreqSecs);
        }
        return conf;
    }
}

package dev.egret.metrics;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.metric.EventLoggerBolt;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.Utils;

/**
 * Storm's event logger component, computed at submission: when
 * {@code topology.eventlogger.executors} is above 0 (null: one per worker,
 * {@code topology.workers}), a bolt {@code __eventlogger} running {@link EventLoggerBolt} with
 * that many executors and tasks, subscribed with a fields grouping on {@code component-id} to
 * the {@code __eventlog} stream of every user component. Every component, the system ones
 * included, declares that stream with {@link #STREAM_FIELDS}. What flows there is decided at
 * run time by the debug options (Nimbus' {@code debug}, {@code egret debug}).
 */
public final class EventLoggers {
    /** Storm's {@code StormCommon.EVENTLOGGER_COMPONENT_ID}. */
    public static final String COMPONENT_ID = "__eventlogger";
    /** Storm's {@code StormCommon.EVENTLOGGER_STREAM_ID}. */
    public static final String STREAM_ID = "__eventlog";
    /** Storm's {@code StormCommon.eventLoggerBoltFields()}. */
    public static final List<String> STREAM_FIELDS = List.of(EventLoggerBolt.FIELD_COMPONENT_ID,
            EventLoggerBolt.FIELD_MESSAGE_ID, EventLoggerBolt.FIELD_TS, EventLoggerBolt.FIELD_VALUES);

    private EventLoggers() {
    }

    /**
     * The number of event logger executors {@code conf} asks for: {@code topology.eventlogger.executors},
     * or, when it is set to null, {@code topology.workers} (default 1), as Storm; 0 means no event
     * logger. Absent counts as Storm's default (0): a submitted config always holds it, from
     * {@code defaults.yaml}.
     *
     * @throws InvalidTopologyException when the value is not a non-negative integer
     */
    public static int executors(Map<String, Object> conf) throws InvalidTopologyException {
        if (!conf.containsKey(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS)) {
            return 0;
        }
        Object value = conf.get(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS);
        int n;
        try {
            n = value == null ? ObjectReader.getInt(conf.get(Config.TOPOLOGY_WORKERS), 1) : ObjectReader.getInt(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidTopologyException(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS + ": " + e.getMessage());
        }
        if (n < 0) {
            throw new InvalidTopologyException(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS + " is " + n
                    + "; it must be 0 (no event logger) or more");
        }
        return n;
    }

    /**
     * The event logger component for {@code conf}, or null when it has none.
     *
     * @param sources the ids of the components whose events it receives
     */
    public static MetricsConsumers.Spec fromConfig(Map<String, Object> conf, Iterable<String> sources)
            throws InvalidTopologyException {
        int executors = executors(conf);
        if (executors == 0) {
            return null;
        }
        Map<GlobalStreamId, Grouping> inputs = new LinkedHashMap<>();
        for (String source : sources) {
            inputs.put(new GlobalStreamId(source, STREAM_ID),
                    Grouping.fields(List.of(EventLoggerBolt.FIELD_COMPONENT_ID)));
        }
        Map<String, Object> ownConf = new HashMap<>();
        ownConf.put(Config.TOPOLOGY_TASKS, (long) executors);
        ComponentCommon common = new ComponentCommon(inputs, new HashMap<>());
        common.set_parallelism_hint(executors);
        common.set_json_conf(dev.egret.runtime.ConfigJson.toJson(ownConf));
        byte[] serialized = Utils.javaSerialize(new EventLoggerBolt());
        return new MetricsConsumers.Spec(COMPONENT_ID, common, ComponentObject.serialized_java(serialized));
    }
}

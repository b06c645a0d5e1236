package org.apache.storm.metric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.IBolt;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's event logger bolt: the system component {@code __eventlogger}, added at submission
 * when {@code topology.eventlogger.executors} is above 0 (or unset: one per worker), subscribed
 * to every component's {@code __eventlog} stream. Each tuple there is one event of a component
 * whose debugging is on ({@code Nimbus.debug}, {@code egret debug}); the bolt hands it to every
 * logger of {@code topology.event.logger.register} (each {@code {"class": ..., "arguments": ...}}),
 * or, when none is registered, to a {@link FileBasedEventLogger}.
 */
public class EventLoggerBolt implements IBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(EventLoggerBolt.class);

    /** The fields of the {@code __eventlog} stream, in Storm's order: component-id, message-id, ts, values. */
    public static final String FIELD_TS = "ts";
    public static final String FIELD_VALUES = "values";
    public static final String FIELD_COMPONENT_ID = "component-id";
    public static final String FIELD_MESSAGE_ID = "message-id";

    private transient List<IEventLogger> eventLoggers;

    public EventLoggerBolt() {
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        eventLoggers = new ArrayList<>();
        Object registered = topoConf.get(Config.TOPOLOGY_EVENT_LOGGER_REGISTER);
        if (registered != null && !(registered instanceof List)) {
            throw new IllegalArgumentException(Config.TOPOLOGY_EVENT_LOGGER_REGISTER
                    + " must be a list of {class, arguments} maps, not " + registered);
        }
        List<?> entries = registered == null ? List.of() : (List<?>) registered;
        if (entries.isEmpty()) {
            IEventLogger logger = new FileBasedEventLogger();
            logger.prepare(topoConf, null, context);
            eventLoggers.add(logger);
        } else {
            for (Object entry : entries) {
                eventLoggers.add(newLogger(topoConf, context, entry));
            }
        }
        LOG.info("Event logger task {} runs {}", context.getThisTaskId(), names(eventLoggers));
    }

    @SuppressWarnings("unchecked")
    private static IEventLogger newLogger(Map<String, Object> topoConf, TopologyContext context, Object entry) {
        if (!(entry instanceof Map) || !(((Map<?, ?>) entry).get("class") instanceof String)) {
            throw new IllegalArgumentException("An entry of " + Config.TOPOLOGY_EVENT_LOGGER_REGISTER
                    + " must be a map with a \"class\", not " + entry);
        }
        Map<?, ?> info = (Map<?, ?>) entry;
        String className = (String) info.get("class");
        Object arguments = info.get("arguments");
        if (arguments != null && !(arguments instanceof Map)) {
            throw new IllegalArgumentException("The \"arguments\" of event logger " + className
                    + " must be a map, not " + arguments);
        }
        IEventLogger logger;
        try {
            // Config.registerEventLogger records a nested class's canonical name: tried as a$B too.
            Class<?> klass = dev.egret.metrics.MetricsConsumerBolt.loadClass(className);
            logger = (IEventLogger) klass.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new RuntimeException("Could not instantiate the event logger " + className
                    + " (it must implement IEventLogger and have a public no-argument constructor)", e);
        }
        logger.prepare(topoConf, (Map<String, Object>) arguments, context);
        return logger;
    }

    private static List<String> names(List<IEventLogger> loggers) {
        List<String> out = new ArrayList<>();
        for (IEventLogger l : loggers) {
            out.add(l.getClass().getName());
        }
        return out;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void execute(Tuple input) {
        LOG.debug("Event from {}:{}: {}", input.getSourceComponent(), input.getSourceTask(), input.getValues());
        Object messageId = input.getValueByField(FIELD_MESSAGE_ID);
        long ts = input.getLongByField(FIELD_TS);
        List<Object> values = (List<Object>) input.getValueByField(FIELD_VALUES);
        IEventLogger.EventInfo event = new IEventLogger.EventInfo(ts, input.getSourceComponent(),
                input.getSourceTask(), messageId, values);
        for (IEventLogger logger : eventLoggers) {
            logger.log(event);
        }
    }

    @Override
    public void cleanup() {
        if (eventLoggers == null) {
            return;
        }
        for (IEventLogger logger : eventLoggers) {
            logger.close();
        }
    }
}

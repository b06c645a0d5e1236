package org.apache.storm.metric;

import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * Storm's event logger: receives the tuples of components with event logging turned on.
 * Registered with {@code Config.registerEventLogger}.
 */
public interface IEventLogger {
    void prepare(Map<String, Object> conf, Map<String, Object> arguments, TopologyContext context);

    void log(EventInfo e);

    void close();

    /** One logged tuple. */
    class EventInfo {
        private final long ts;
        private final String component;
        private final int task;
        private final Object messageId;
        private final List<Object> values;

        public EventInfo(long ts, String component, int task, Object messageId, List<Object> values) {
            this.ts = ts;
            this.component = component;
            this.task = task;
            this.messageId = messageId;
            this.values = values;
        }

        public long getTs() {
            return ts;
        }

        public String getComponent() {
            return component;
        }

        public int getTask() {
            return task;
        }

        public Object getMessageId() {
            return messageId;
        }

        public List<Object> getValues() {
            return values;
        }

        @Override
        public String toString() {
            return new Date(ts) + "," + component + "," + task + "," + (messageId == null ? "" : messageId)
                    + "," + values;
        }
    }
}

package dev.egret.multilang;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.task.TopologyContext;

/**
 * Turns Java values into plain JSON values (maps with string keys, lists, strings, numbers,
 * booleans, null) for the multilang protocol. Anything else is sent as its {@code toString()},
 * as Storm's JSON encoder did: a config or tuple holding a user object must not break the
 * subprocess's setup or a tuple's delivery.
 */
public final class JsonValues {
    /** Nesting beyond this is cut (a self-referencing structure must not overflow the stack). */
    private static final int MAX_DEPTH = 64;

    private JsonValues() {
    }

    public static Object sanitize(Object value) {
        return sanitize(value, 0);
    }

    private static Object sanitize(Object value, int depth) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Number) {
            if (value instanceof Double && (((Double) value).isNaN() || ((Double) value).isInfinite())) {
                return value.toString();
            }
            if (value instanceof Float && (((Float) value).isNaN() || ((Float) value).isInfinite())) {
                return value.toString();
            }
            return value;
        }
        if (depth >= MAX_DEPTH) {
            return String.valueOf(value);
        }
        if (value instanceof Character) {
            return value.toString();
        }
        if (value instanceof byte[]) {
            // Jackson writes byte[] as base64, which is what a JSON peer can carry.
            return value;
        }
        if (value instanceof Map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                out.put(String.valueOf(e.getKey()), sanitize(e.getValue(), depth + 1));
            }
            return out;
        }
        if (value instanceof Collection) {
            List<Object> out = new ArrayList<>(((Collection<?>) value).size());
            for (Object o : (Collection<?>) value) {
                out.add(sanitize(o, depth + 1));
            }
            return out;
        }
        if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            List<Object> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(sanitize(Array.get(value, i), depth + 1));
            }
            return out;
        }
        return String.valueOf(value);
    }

    /**
     * The {@code context} of the setup message, with the keys of the multilang protocol:
     * {@code taskid}, {@code componentid}, {@code task->component}, {@code streams},
     * {@code stream->outputfields}, {@code stream->target->grouping},
     * {@code source->stream->grouping}, {@code source->stream->fields}.
     */
    public static Map<String, Object> contextOf(TopologyContext context) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (context == null) {
            return out;
        }
        Map<String, Object> taskToComponent = new TreeMap<>();
        for (Map.Entry<Integer, String> e : context.getTaskToComponent().entrySet()) {
            taskToComponent.put(String.valueOf(e.getKey()), e.getValue());
        }
        out.put("task->component", taskToComponent);
        out.put("taskid", context.getThisTaskId());
        out.put("componentid", context.getThisComponentId());
        out.put("streams", new ArrayList<>(context.getThisStreams()));
        out.put("stream->outputfields", sanitize(context.getThisOutputFieldsForStreams()));
        Map<String, Object> targets = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Grouping>> s : context.getThisTargets().entrySet()) {
            Map<String, Object> byTarget = new LinkedHashMap<>();
            for (Map.Entry<String, Grouping> t : s.getValue().entrySet()) {
                byTarget.put(t.getKey(), describe(t.getValue()));
            }
            targets.put(s.getKey(), byTarget);
        }
        out.put("stream->target->grouping", targets);
        Map<String, Map<String, Object>> sources = new LinkedHashMap<>();
        for (Map.Entry<GlobalStreamId, Grouping> e : context.getThisSources().entrySet()) {
            sources.computeIfAbsent(e.getKey().get_componentId(), k -> new LinkedHashMap<>())
                    .put(e.getKey().get_streamId(), describe(e.getValue()));
        }
        out.put("source->stream->grouping", sources);
        out.put("source->stream->fields", sanitize(context.getThisInputFields()));
        return out;
    }

    /** A grouping as text, e.g. {@code fields:[word]} or {@code shuffle}. */
    static String describe(Grouping g) {
        if (g == null || g.getSetField() == null) {
            return "unset";
        }
        String kind = g.getSetField().name().toLowerCase(java.util.Locale.ROOT);
        if (kind.equals("fields")) {
            return "fields:" + g.get_fields();
        }
        return kind;
    }
}

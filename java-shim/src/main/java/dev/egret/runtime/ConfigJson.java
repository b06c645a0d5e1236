package dev.egret.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Topology and component configs as JSON objects, the way Storm ships them.
 *
 * <p>Parsing gives what Storm's JSON parser gives user code: integers as {@link Long},
 * decimals as {@link Double}, objects as maps with String keys, arrays as lists.
 * Writing accepts only values that survive a JSON round trip (null, Boolean, Number,
 * String, Character, collections and arrays of those, maps with String keys); anything
 * else is refused with the key path and the offending class, as Storm refuses a
 * non-JSON-serializable config.
 */
public final class ConfigJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private ConfigJson() {
    }

    /**
     * Parses a JSON object; an empty or blank string is an empty map.
     *
     * @throws IllegalArgumentException if the text is not a JSON object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parse(String json) {
        if (json == null || json.isBlank()) {
            return new LinkedHashMap<>();
        }
        try {
            Object v = MAPPER.readValue(json, Object.class);
            if (v == null) {
                return new LinkedHashMap<>();
            }
            if (!(v instanceof Map)) {
                throw new IllegalArgumentException("config JSON is not an object: " + abbreviate(json));
            }
            return (Map<String, Object>) v;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("config is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Parses any JSON value (used for {@code -c} option values). */
    public static Object parseValue(String json) throws JsonProcessingException {
        return MAPPER.readValue(json, Object.class);
    }

    /**
     * Writes a config map as a JSON object after checking every value.
     *
     * @throws IllegalArgumentException naming the key and class of a value JSON cannot carry
     */
    public static String toJson(Map<String, ?> conf) {
        Object normalized = normalize(conf == null ? Map.of() : conf, "");
        try {
            return MAPPER.writeValueAsString(normalized);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("config cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Checks that a config can travel as JSON, without writing it. */
    public static void validate(Map<String, ?> conf) {
        normalize(conf == null ? Map.of() : conf, "");
    }

    private static Object normalize(Object value, String path) {
        if (value == null || value instanceof String || value instanceof Boolean) {
            return value;
        }
        if (value instanceof Number) {
            if (value instanceof Double && !Double.isFinite((Double) value)
                    || value instanceof Float && !Float.isFinite((Float) value)) {
                throw invalid(path, value, "a non-finite number");
            }
            return value;
        }
        if (value instanceof Character) {
            return value.toString();
        }
        if (value instanceof Map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                if (!(e.getKey() instanceof String)) {
                    throw invalid(path, e.getKey(), "a map key that is not a String");
                }
                String key = (String) e.getKey();
                out.put(key, normalize(e.getValue(), path.isEmpty() ? key : path + "." + key));
            }
            return out;
        }
        if (value instanceof Collection) {
            List<Object> out = new ArrayList<>();
            int i = 0;
            for (Object o : (Collection<?>) value) {
                out.add(normalize(o, path + "[" + i++ + "]"));
            }
            return out;
        }
        if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            List<Object> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(normalize(Array.get(value, i), path + "[" + i + "]"));
            }
            return out;
        }
        throw invalid(path, value, "a " + value.getClass().getName());
    }

    private static IllegalArgumentException invalid(String path, Object value, String what) {
        return new IllegalArgumentException("Topology conf is not json-serializable: the value of '"
                + (path.isEmpty() ? "<root>" : path) + "' is " + what
                + (value == null ? "" : " (" + abbreviate(String.valueOf(value)) + ")"));
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}

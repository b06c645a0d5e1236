package dev.egret.runtime;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 *
 * <p>It reads and writes with jackson-core's streaming parser and generator, not jackson-databind's
 * {@code ObjectMapper}: every JVM of a topology parses configs as it starts, and the mapper alone
 * loads some 400 classes (about 2.5 MB of class data per JVM). The result is the mapper's with
 * {@code USE_LONG_FOR_INTS} and {@code FAIL_ON_TRAILING_TOKENS}: an integer past a long is
 * refused, a repeated key keeps its last value.
 */
public final class ConfigJson {
    private static final JsonFactory FACTORY = new JsonFactory();

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
            Object v = parseValue(json);
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
        try (JsonParser p = FACTORY.createParser(json)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new JsonParseException(p, "No content to map due to end-of-input");
            }
            Object value = read(p, first);
            JsonToken trailing = p.nextToken();
            if (trailing != null) {
                throw new JsonParseException(p, "Trailing token (of type " + trailing
                        + ") found after value (bound as `java.lang.Object`): not allowed as per"
                        + " `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`");
            }
            return value;
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            // Reading a String: no I/O can fail.
            throw new UncheckedIOException(e);
        }
    }

    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> out = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String name = p.currentName();
                    out.put(name, read(p, p.nextToken()));
                }
                return out;
            }
            case START_ARRAY: {
                List<Object> out = new ArrayList<>();
                for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
                    out.add(read(p, v));
                }
                return out;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                // As the mapper with USE_LONG_FOR_INTS: past a long, refused.
                return p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return p.getDoubleValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new JsonParseException(p, "Unexpected token " + t);
        }
    }

    /**
     * Writes a config map as a JSON object after checking every value.
     *
     * @throws IllegalArgumentException naming the key and class of a value JSON cannot carry
     */
    public static String toJson(Map<String, ?> conf) {
        Object normalized = normalize(conf == null ? Map.of() : conf, "");
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, normalized);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("config cannot be written as JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            // Writing to a String: no I/O can fail.
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Writes a value {@link #normalize} returned, as the mapper writes it. */
    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof String) {
            g.writeString((String) v);
        } else if (v instanceof Boolean) {
            g.writeBoolean((Boolean) v);
        } else if (v instanceof Integer || v instanceof Short || v instanceof Byte || v instanceof AtomicInteger) {
            g.writeNumber(((Number) v).intValue());
        } else if (v instanceof Long || v instanceof AtomicLong) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double) {
            g.writeNumber((Double) v);
        } else if (v instanceof Float) {
            g.writeNumber((Float) v);
        } else if (v instanceof BigInteger) {
            g.writeNumber((BigInteger) v);
        } else if (v instanceof BigDecimal) {
            g.writeNumber((BigDecimal) v);
        } else if (v instanceof Number) {
            g.writeNumber(v.toString());
        } else if (v instanceof Map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                g.writeFieldName((String) e.getKey());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List) {
            g.writeStartArray();
            for (Object o : (List<?>) v) {
                write(g, o);
            }
            g.writeEndArray();
        } else {
            throw new IllegalStateException("not normalized: " + v.getClass().getName());
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

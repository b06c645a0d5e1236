package dev.egret.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** ConfigJson reads and writes what jackson-databind's mapper, configured as it used to be, does. */
class ConfigJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final List<String> TEXTS = List.of(
            "{}", "{\"a\":1}", "{\"topology.workers\":3,\"x\":[1,2.5,\"s\",true,false,null,{\"n\":{}}]}",
            "{\"neg\":-9223372036854775808,\"f\":1e300,\"g\":-0.0}",
            "{\"esc\":\"tab\\t quote\\\" \\u00fc \\ud83d\\ude00\",\"dup\":1,\"dup\":2}",
            "  {\"spaced\" : [ ] }  ", "[1,2]", "\"text\"", "42", "null", "true");

    @Test
    void parsesAsTheMapperParsed() throws Exception {
        for (String text : TEXTS) {
            assertEquals(MAPPER.readValue(text, Object.class), ConfigJson.parseValue(text), text);
            Object ours = ConfigJson.parseValue(text);
            if (ours instanceof Map) {
                assertEquals(MAPPER.readValue(text, Object.class), ConfigJson.parse(text), text);
            }
        }
        assertEquals(Long.class, ((Map<?, ?>) ConfigJson.parseValue("{\"a\":1}")).get("a").getClass());
        assertEquals(Long.valueOf(2), ((Map<?, ?>) ConfigJson.parseValue(TEXTS.get(4))).get("dup"));
    }

    @Test
    void refusesWhatTheMapperRefused() {
        for (String bad : List.of("{\"a\":1} x", "{\"a\":1}{}", "{\"a\":", "{a:1}", "[1,]", "", "   ", "NaN",
                "{\"big\":123456789012345678901234567890}")) {
            assertThrows(JsonProcessingException.class, () -> MAPPER.readValue(bad, Object.class), bad);
            assertThrows(JsonProcessingException.class, () -> ConfigJson.parseValue(bad), bad);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConfigJson.parse("{\"a\":1} {}"));
        assertTrue(e.getMessage().startsWith("config is not valid JSON: Trailing token"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConfigJson.parse("[1]"));
        assertTrue(e.getMessage().contains("not an object"), e.getMessage());
        assertEquals(Map.of(), ConfigJson.parse(" "));
        assertEquals(Map.of(), ConfigJson.parse("null"));
    }

    @Test
    void writesAsTheMapperWrote() throws Exception {
        Map<String, Object> conf = new LinkedHashMap<>();
        conf.put("i", 3);
        conf.put("l", 4L);
        conf.put("s", (short) 5);
        conf.put("b", (byte) 6);
        conf.put("d", 1.0);
        conf.put("d2", 0.1 + 0.2);
        conf.put("f", 1.5f);
        conf.put("bi", new BigInteger("123456789012345678901234567890"));
        conf.put("bd", new BigDecimal("1.50"));
        conf.put("al", new AtomicLong(7));
        conf.put("str", "tab\t quote\" ü 😀 </script>");
        conf.put("bool", true);
        conf.put("nil", null);
        conf.put("list", new ArrayList<>(List.of(1, "x", List.of())));
        conf.put("map", new LinkedHashMap<>(Map.of("k", 2L)));
        String ours = ConfigJson.toJson(conf);
        assertEquals(MAPPER.writeValueAsString(conf), ours);
        assertEquals("{\"a\":[\"c\",\"x\"]}", ConfigJson.toJson(Map.of("a", new Object[] {'c', "x"})));
        assertEquals("{}", ConfigJson.toJson(null));
    }
}

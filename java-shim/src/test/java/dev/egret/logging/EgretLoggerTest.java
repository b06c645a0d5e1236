package dev.egret.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class EgretLoggerTest {
    @Test
    void levelsParseWithInfoAsDefault() {
        assertEquals(Level.INFO.toInt(), EgretLogger.parseLevel(null));
        assertEquals(Level.DEBUG.toInt(), EgretLogger.parseLevel("debug"));
        assertEquals(Level.WARN.toInt(), EgretLogger.parseLevel("WARNING"));
        assertEquals(EgretLogger.OFF, EgretLogger.parseLevel("off"));
        assertEquals(Level.INFO.toInt(), EgretLogger.parseLevel("nonsense"));
    }

    @Test
    void linesHaveTimeThreadLevelLoggerAndMessage() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            EgretLogger log = new EgretLogger("a.b.C", Level.INFO.toInt());
            log.info("Opened spout {}:{}", "word", 3);
            log.debug("hidden");
        } finally {
            System.setOut(old);
        }
        String out = buf.toString(StandardCharsets.UTF_8).trim();
        assertTrue(out.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^]]+] INFO a\\.b\\.C - Opened spout word:3"),
                out);
        assertFalse(out.contains("hidden"));
    }

    @Test
    void slf4jUsesThisProvider() {
        assertTrue(LoggerFactory.getLogger("x") instanceof EgretLogger);
    }
}

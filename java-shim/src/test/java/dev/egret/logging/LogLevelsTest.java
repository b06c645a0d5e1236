package dev.egret.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class LogLevelsTest {
    @AfterEach
    void reset() {
        LogLevels.apply(Map.of());
    }

    @Test
    void aLevelCoversTheLoggersBelowItByDottedPrefix() {
        EgretLoggerFactory f = new EgretLoggerFactory(Level.INFO.toInt());
        Map<String, Integer> set = Map.of("com.acme", Level.DEBUG.toInt(), "com.acme.quiet", Level.ERROR.toInt(),
                "ROOT", Level.WARN.toInt());
        assertEquals(Level.DEBUG.toInt(), f.effective("com.acme", set));
        assertEquals(Level.DEBUG.toInt(), f.effective("com.acme.Foo", set));
        assertEquals(Level.ERROR.toInt(), f.effective("com.acme.quiet.Bar", set));
        // A prefix by dotted element only: com.acmeX is not below com.acme.
        assertEquals(Level.WARN.toInt(), f.effective("com.acmeX.Foo", set));
        assertEquals(Level.WARN.toInt(), f.effective("org.other", set));
        assertEquals(Level.INFO.toInt(), f.effective("org.other", Map.of("com.acme", Level.DEBUG.toInt())));
    }

    @Test
    void existingLoggersChangeAtRuntimeAndReturnWhenTheEntryGoes() {
        Logger foo = LoggerFactory.getLogger("dev.egret.test.levels.Foo");
        Logger other = LoggerFactory.getLogger("dev.egret.test.other.Bar");
        assertFalse(foo.isDebugEnabled());
        assertTrue(LogLevels.apply(Map.of("dev.egret.test.levels", "debug")));
        assertTrue(foo.isDebugEnabled());
        assertFalse(foo.isTraceEnabled());
        assertFalse(other.isDebugEnabled());
        // A logger created after the change gets it too.
        assertTrue(LoggerFactory.getLogger("dev.egret.test.levels.Late").isDebugEnabled());
        assertTrue(LogLevels.apply(Map.of("ROOT", "OFF", "dev.egret.test.levels", "ALL")));
        assertTrue(foo.isTraceEnabled());
        assertFalse(other.isErrorEnabled());
        assertTrue(LogLevels.apply(Map.of()));
        assertFalse(foo.isDebugEnabled());
        assertTrue(foo.isInfoEnabled());
        assertTrue(other.isErrorEnabled());
    }

    @Test
    void fatalIsErrorAndUnknownLevelsAreSkipped() {
        Logger foo = LoggerFactory.getLogger("dev.egret.test.fatal.Foo");
        LogLevels.apply(Map.of("dev.egret.test.fatal", "FATAL", "dev.egret.test.bad", "LOUD"));
        assertFalse(foo.isWarnEnabled());
        assertTrue(foo.isErrorEnabled());
        assertTrue(LoggerFactory.getLogger("dev.egret.test.bad.X").isInfoEnabled());
        assertFalse(LoggerFactory.getLogger("dev.egret.test.bad.X").isDebugEnabled());
    }
}

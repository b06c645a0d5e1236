package dev.egret.logging;

import java.io.PrintStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logger writing {@code yyyy-MM-dd HH:mm:ss.SSS [thread] LEVEL logger - message} lines
 * to stdout, followed by the stack trace when there is a throwable. Each event is
 * formatted fully first and printed with one call, so lines of concurrent threads do
 * not interleave.
 */
final class EgretLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
    static final int OFF = Integer.MAX_VALUE;

    /** Changed at runtime by {@link LogLevels} (Storm's dynamic log levels). */
    private volatile int level;

    EgretLogger(String name, int level) {
        this.name = name;
        this.level = level;
    }

    void setLevel(int level) {
        this.level = level;
    }

    /** Parses a level name (case-insensitive); unknown or missing means INFO. */
    static int parseLevel(String text) {
        Integer l = levelOf(text);
        return l == null ? Level.INFO.toInt() : l;
    }

    /**
     * The level named {@code text} (case-insensitive): slf4j's names, OFF, and log4j's ALL
     * (as TRACE), FATAL (as ERROR) and WARNING (as WARN); null when unknown or missing.
     */
    static Integer levelOf(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim().toUpperCase(Locale.ROOT);
        switch (t) {
            case "OFF":
                return OFF;
            case "ALL":
                return Level.TRACE.toInt();
            case "FATAL":
                return Level.ERROR.toInt();
            case "WARNING":
                return Level.WARN.toInt();
            default:
                break;
        }
        for (Level l : Level.values()) {
            if (l.name().equals(t)) {
                return l.toInt();
            }
        }
        return null;
    }

    private boolean enabled(Level l) {
        return l.toInt() >= level;
    }

    @Override
    public boolean isTraceEnabled() {
        return enabled(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return enabled(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return enabled(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return enabled(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return enabled(Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level l, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        String message = MessageFormatter.basicArrayFormat(messagePattern, arguments);
        StringBuilder sb = new StringBuilder(64 + (message == null ? 4 : message.length()));
        sb.append(TIME.format(LocalDateTime.now())).append(" [").append(Thread.currentThread().getName())
                .append("] ").append(l.name()).append(' ').append(name).append(" - ").append(message);
        if (throwable != null) {
            java.io.StringWriter sw = new java.io.StringWriter();
            throwable.printStackTrace(new java.io.PrintWriter(sw));
            sb.append(System.lineSeparator()).append(sw.toString().stripTrailing());
        }
        PrintStream out = System.out;
        out.println(sb);
    }
}

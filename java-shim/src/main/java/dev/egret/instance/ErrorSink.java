package dev.egret.instance;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** reportError: logs at ERROR with the stack trace and forwards it to the stream manager. */
final class ErrorSink {
    private static final Logger LOG = LoggerFactory.getLogger("dev.egret.instance.Executor");
    /** ReportedError messages are capped: a stack trace is diagnostics, not data. */
    private static final int MAX_MESSAGE_CHARS = 16 * 1024;

    private final OutboundSink sink;

    ErrorSink(OutboundSink sink) {
        this.sink = sink;
    }

    void report(int taskId, String component, Throwable error, boolean fatal) {
        LOG.error("Error reported by task {}:{}", component, taskId, error);
        String text = stackTrace(error);
        if (text.length() > MAX_MESSAGE_CHARS) {
            text = text.substring(0, MAX_MESSAGE_CHARS);
        }
        // The sink never throws on a lost connection: the error is then only in the log.
        sink.sendError(taskId, text, fatal);
    }

    static String stackTrace(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        return sw.toString();
    }
}

package org.apache.storm.utils;

import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a subprocess's {@code log} commands to the worker log, at the level the subprocess
 * gave, under the logger of the shell component's class, prefixed with the process's pid and
 * component.
 */
public class DefaultShellLogHandler implements ShellLogHandler {
    private Logger log = LoggerFactory.getLogger(DefaultShellLogHandler.class);
    private String processInfo = "";

    public DefaultShellLogHandler() {
    }

    @Override
    public void setUpContext(Class<?> ownerCls, ShellProcess process, TopologyContext context) {
        this.log = LoggerFactory.getLogger(ownerCls == null ? DefaultShellLogHandler.class : ownerCls);
        this.processInfo = process == null ? "" : process.getProcessInfoString();
    }

    @Override
    /** @throws IllegalArgumentException when {@code msg} is null, as Storm's */
    public void log(ShellMsg msg) {
        if (msg == null) {
            throw new IllegalArgumentException("shellMsg is required");
        }
        String text = msg.getMsg();
        ShellMsg.ShellLogLevel level = msg.getLogLevel() == null ? ShellMsg.ShellLogLevel.INFO : msg.getLogLevel();
        switch (level) {
            case TRACE:
                log.trace("{} {}", processInfo, text);
                break;
            case DEBUG:
                log.debug("{} {}", processInfo, text);
                break;
            case WARN:
                log.warn("{} {}", processInfo, text);
                break;
            case ERROR:
                log.error("{} {}", processInfo, text);
                break;
            case INFO:
            default:
                log.info("{} {}", processInfo, text);
                break;
        }
    }
}

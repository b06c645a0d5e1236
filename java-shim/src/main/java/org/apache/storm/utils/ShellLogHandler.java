package org.apache.storm.utils;

import org.apache.storm.multilang.ShellMsg;
import org.apache.storm.task.TopologyContext;

/** Handles the {@code log} commands of a multilang subprocess ({@code topology.multilang.log.handler}). */
public interface ShellLogHandler {

    /** Called once, after the subprocess started, before any {@link #log}. */
    void setUpContext(Class<?> ownerCls, ShellProcess process, TopologyContext context);

    void log(ShellMsg msg);
}

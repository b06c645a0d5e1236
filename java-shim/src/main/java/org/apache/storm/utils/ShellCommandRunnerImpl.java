package org.apache.storm.utils;

import java.io.IOException;
import java.util.Map;

/** {@link ShellCommandRunner} over {@link ShellUtils.ShellCommandExecutor}. */
public class ShellCommandRunnerImpl implements ShellCommandRunner {

    public ShellCommandRunnerImpl() {
    }

    @Override
    public String execCommand(String... cmd) throws IOException {
        return execCommand(null, cmd, 0L);
    }

    @Override
    public String execCommand(Map<String, String> env, String[] cmd, long timeout) throws IOException {
        ShellUtils.ShellCommandExecutor exec = new ShellUtils.ShellCommandExecutor(cmd, null, env, timeout);
        exec.execute();
        return exec.getOutput();
    }

    @Override
    public String execCommand(Map<String, String> env, String... cmd) throws IOException {
        return execCommand(env, cmd, 0L);
    }

    @Override
    public String getTokenSeparatorRegex() {
        return ShellUtils.TOKEN_SEPARATOR_REGEX;
    }
}

package org.apache.storm.utils;

import java.io.IOException;
import java.util.Map;

/** Runs external commands and returns their output. */
public interface ShellCommandRunner {

    String execCommand(String... cmd) throws IOException;

    /** @param timeoutInterval ms after which the command is killed; 0 = no limit */
    String execCommand(Map<String, String> env, String[] cmd, long timeoutInterval) throws IOException;

    String execCommand(Map<String, String> env, String... cmd) throws IOException;

    /** What separates the tokens of a command's output. */
    String getTokenSeparatorRegex();
}

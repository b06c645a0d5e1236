package dev.egret.multilang;

import java.io.File;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the interpreter of a multilang command. Topologies written for Storm 1.x name
 * {@code python} (storm-starter's {@code new ShellBolt("python", "splitsentence.py")});
 * machines now often have only {@code python3}. When the command is literally {@code python}
 * and no {@code python} is on the PATH but {@code python3} is, Egret runs {@code python3}
 * and says so in the worker log. Every other command runs as given, resolved from the PATH
 * by the operating system.
 */
public final class Commands {
    private static final Logger LOG = LoggerFactory.getLogger(Commands.class);

    private Commands() {
    }

    /** The command to start; a copy when anything changed. */
    public static String[] resolve(String[] command, Map<String, String> environment) {
        if (command == null || command.length == 0) {
            throw new IllegalArgumentException("A multilang component needs a command to run, got none");
        }
        if (!"python".equals(command[0])) {
            return command;
        }
        String path = environment == null ? null : environment.get("PATH");
        if (path == null) {
            path = System.getenv("PATH");
        }
        if (onPath("python", path) || !onPath("python3", path)) {
            return command;
        }
        String[] out = command.clone();
        out[0] = "python3";
        LOG.info("The multilang command {} names python, which is not on the PATH; running it with python3",
                String.join(" ", command));
        return out;
    }

    static boolean onPath(String name, String path) {
        if (path == null || path.isEmpty()) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File f = new File(dir.isEmpty() ? "." : dir, name);
            if (f.isFile() && f.canExecute()) {
                return true;
            }
        }
        return false;
    }
}

package dev.egret.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes what a component saw to a file of the output directory, so that the
 * end-to-end tests can read exact results.
 *
 * <p>Each call appends one whole line with a single {@code write} on a file
 * opened in append mode, so a reader never sees two lines interleaved and a
 * line without its trailing newline is simply not complete yet. Nothing is
 * buffered in the JVM: a line is visible as soon as the call returns.
 */
public final class Recorder {
    private Recorder() {}

    /** {@code <dir>/<name>}, the file a component task records into. */
    public static Path file(String dir, String name) {
        return Path.of(dir, name);
    }

    /** Appends {@code line + "\n"} to {@code <dir>/<name>}, creating the directory if needed. */
    public static void append(String dir, String name, String line) {
        Path path = file(dir, name);
        try {
            Files.createDirectories(path.getParent());
            Files.write(
                    path,
                    (line + "\n").getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record into " + path, e);
        }
    }

    /** Sleeps a little: what a finite spout does in nextTuple once its data set is out. */
    public static void idle() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads {@code <topology name> <output dir>} from main's arguments.
     *
     * @throws IllegalArgumentException when either is missing
     */
    public static String[] nameAndDir(String[] args, String usage) {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: " + usage + " <topology name> <output dir>");
        }
        return new String[] {args[0], args[1]};
    }
}

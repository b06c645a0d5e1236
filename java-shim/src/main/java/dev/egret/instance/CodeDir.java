package dev.egret.instance;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's code directory, as Storm lays it out: the user jar's {@code resources/}
 * directory extracted into {@code <work dir>/resources}, where multilang subprocesses run
 * ({@code TopologyContext.getCodeDir()} is the work dir).
 *
 * <p>The container extracts them before it starts any JVM ({@code container/src/code_dir.rs})
 * and says so with {@link #EXTRACTED_PROPERTY}; what follows is for a JVM started otherwise.
 * The user jar is found on the class path ({@code <shim jar>:<user jar>}, see
 * contracts.md "Instance JVMs"): every class-path jar but the shim's own is searched for
 * {@code resources/}. Extraction starts in the background when the instance starts
 * ({@link #prepare}) so that startup does not wait for it, happens once per directory per
 * JVM (the jar's entries are listed once per JVM, however many executors it hosts), and
 * {@link #ensureExtracted} (called by ShellBolt and ShellSpout before they start their
 * subprocess) waits for it. Files already there (a restarted instance) are replaced.
 * Entries escaping the directory ({@code ../}) are refused.
 */
public final class CodeDir {
    private static final Logger LOG = LoggerFactory.getLogger(CodeDir.class);

    public static final String RESOURCES = "resources";
    private static final String PREFIX = RESOURCES + "/";

    private static final Map<String, CompletableFuture<Void>> EXTRACTIONS = new ConcurrentHashMap<>();
    /** {@link #resourceEntries}, by jar path, length and modification time. */
    private static final Map<String, List<String>> RESOURCE_ENTRIES = new ConcurrentHashMap<>();

    private CodeDir() {
    }

    /**
     * The system property the container sets on every JVM it starts ({@code
     * container/src/code_dir.rs}) once it has extracted every instance's code directory
     * itself: then nothing is extracted here.
     */
    public static final String EXTRACTED_PROPERTY = "egret.code.dir.extracted";

    /**
     * Starts extracting the user jar's resources into {@code workDir}; never throws. Empty:
     * nothing to do. When the container has extracted them already ({@link
     * #EXTRACTED_PROPERTY}), only records that the directory is ready.
     */
    public static void prepare(String workDir) {
        if (workDir == null || workDir.isEmpty()) {
            return;
        }
        if (Boolean.getBoolean(EXTRACTED_PROPERTY)) {
            EXTRACTIONS.putIfAbsent(key(new File(workDir)), CompletableFuture.completedFuture(null));
            return;
        }
        start(new File(workDir), true);
    }

    private static String key(File codeDir) {
        return codeDir.getAbsoluteFile().toPath().normalize().toString();
    }

    /** Extracts the resources into {@code codeDir} unless this JVM did already, and waits for it. */
    public static void ensureExtracted(File codeDir) {
        try {
            start(codeDir, false).join();
        } catch (RuntimeException e) {
            // The failure was logged by the extraction; the subprocess will say what is missing.
            LOG.debug("Extraction into {} failed earlier: {}", codeDir, e.getMessage());
        }
    }

    private static CompletableFuture<Void> start(File codeDir, boolean background) {
        return EXTRACTIONS.computeIfAbsent(key(codeDir), k -> {
            if (!background) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                try {
                    extract(Path.of(k));
                    f.complete(null);
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
                return f;
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    extract(Path.of(k));
                    f.complete(null);
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            }, "code-dir-extract");
            t.setDaemon(true);
            t.start();
            return f;
        });
    }

    private static void extract(Path codeDir) {
        long start = System.nanoTime();
        int files = 0;
        for (File jar : userJars()) {
            try {
                files += extractFrom(jar, codeDir.resolve(RESOURCES));
            } catch (IOException e) {
                LOG.error("Could not extract resources/ of {} into {}: {}", jar, codeDir, e.getMessage());
                throw new IllegalStateException("extraction of " + jar + " failed", e);
            }
        }
        if (files > 0) {
            LOG.info("Extracted {} files of the jar's resources/ into {} in {} ms", files,
                    codeDir.resolve(RESOURCES), (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** Extracts the {@code resources/} entries of one jar; returns the number of files written. */
    public static int extractFrom(File jar, Path target) throws IOException {
        int files = 0;
        Path root = target.toAbsolutePath().normalize();
        try (JarFile jf = new JarFile(jar)) {
            for (String name : resourceEntries(jar, jf)) {
                JarEntry e = jf.getJarEntry(name);
                if (e == null) {
                    throw new IOException("entry " + name + " is no longer in the jar");
                }
                Path out = root.resolve(name.substring(PREFIX.length())).normalize();
                if (!out.startsWith(root)) {
                    LOG.warn("Skipping jar entry {} of {}: it points outside {}", name, jar, root);
                    continue;
                }
                if (e.isDirectory()) {
                    Files.createDirectories(out);
                    continue;
                }
                Files.createDirectories(out.getParent());
                Path tmp = Files.createTempFile(out.getParent(), ".extract-", ".tmp");
                try (InputStream in = jf.getInputStream(e)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    if (isScript(tmp)) {
                        makeExecutable(tmp);
                    }
                    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(tmp);
                }
                files++;
            }
        }
        return files;
    }

    /**
     * The names of the jar's {@code resources/} entries, listed once per JVM and jar version:
     * a fat jar has tens of thousands of entries, and every executor of a container's JVM
     * extracts into its own directory (listing them once per executor cost about half a
     * second of a 2-core machine's start of ExclamationTopology). Threads asking for the
     * same jar while it is listed wait for that listing.
     */
    static List<String> resourceEntries(File jar, JarFile open) {
        String key = jar.getAbsolutePath() + ":" + jar.length() + ":" + jar.lastModified();
        return RESOURCE_ENTRIES.computeIfAbsent(key, k -> {
            List<String> names = new ArrayList<>();
            Enumeration<JarEntry> entries = open.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.startsWith(PREFIX) && name.length() > PREFIX.length()) {
                    names.add(name);
                }
            }
            return List.copyOf(names);
        });
    }

    /** A file starting with {@code #!} is meant to be run directly (jar entries carry no mode bits). */
    private static boolean isScript(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return in.read() == '#' && in.read() == '!';
        }
    }

    private static void makeExecutable(Path p) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            perms.add(PosixFilePermission.OWNER_EXECUTE);
            Files.setPosixFilePermissions(p, perms);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("Could not make {} executable: {}", p, e.getMessage());
        }
    }

    /** The topology's jars (egret.topology.classpath), then the class-path jars other than the shim's own. */
    static List<File> userJars() {
        File shim = null;
        try {
            shim = new File(CodeDir.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .getAbsoluteFile();
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            LOG.debug("Could not locate the shim's own jar: {}", e.getMessage());
        }
        List<File> jars = new ArrayList<>();
        for (java.nio.file.Path p : dev.egret.runtime.TopologyClassLoader.configuredJars()) {
            jars.add(p.toFile().getAbsoluteFile());
        }
        String cp = System.getProperty("java.class.path", "");
        for (String entry : cp.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            File f = new File(entry).getAbsoluteFile();
            if (f.isFile() && f.getName().endsWith(".jar") && !f.equals(shim) && !jars.contains(f)) {
                jars.add(f);
            }
        }
        return jars;
    }
}

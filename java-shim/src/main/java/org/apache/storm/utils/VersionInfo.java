package org.apache.storm.utils;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The version of the Storm API on the classpath, read from the resource
 * {@code storm-client-version-info.properties} (keys version, revision, branch, date,
 * srcChecksum; a missing key reads as {@code "Unknown"}). {@link #getFromClasspath} reads the
 * same resource from the entries of another classpath (directories, jars, {@code dir/*}).
 */
public final class VersionInfo {
    private static final Logger LOG = LoggerFactory.getLogger(VersionInfo.class);
    private static final String RESOURCE = "storm-client-version-info.properties";
    private static final String UNKNOWN = "Unknown";

    public static final IVersionInfo OUR_FULL_VERSION = readOwn();
    public static final SimpleVersion OUR_VERSION = new SimpleVersion(OUR_FULL_VERSION.getVersion());

    public VersionInfo() {
    }

    private static IVersionInfo readOwn() {
        Properties props = new Properties();
        try (InputStream in = VersionInfo.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in != null) {
                props.load(in);
            } else {
                LOG.warn("{} is not on the classpath; the Storm version reads as {}", RESOURCE, UNKNOWN);
            }
        } catch (IOException e) {
            LOG.warn("Could not read {}", RESOURCE, e);
        }
        return new PropertiesVersionInfo(props);
    }

    /** The version info found in the entries of {@code cp} (split on the path separator), or null. */
    public static IVersionInfo getFromClasspath(String cp) {
        if (cp == null) {
            return null;
        }
        return getFromClasspath(Arrays.asList(cp.split(File.pathSeparator)));
    }

    /** The version info of the first entry of {@code classpath} that holds the resource, or null. */
    public static IVersionInfo getFromClasspath(List<String> classpath) {
        if (classpath == null) {
            return null;
        }
        for (String entry : classpath) {
            for (Path candidate : expand(entry)) {
                Properties props = readFrom(candidate);
                if (props != null) {
                    return new PropertiesVersionInfo(props);
                }
            }
        }
        return null;
    }

    private static List<Path> expand(String entry) {
        List<Path> out = new ArrayList<>();
        if (entry == null || entry.isEmpty()) {
            return out;
        }
        if (entry.endsWith("*")) {
            Path dir = Paths.get(entry.substring(0, entry.length() - 1));
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    files.filter(p -> {
                        String n = p.getFileName().toString().toLowerCase();
                        return n.endsWith(".jar");
                    }).sorted().forEach(out::add);
                } catch (IOException e) {
                    LOG.debug("Could not list {}", dir, e);
                }
            }
        } else {
            out.add(Paths.get(entry));
        }
        return out;
    }

    private static Properties readFrom(Path path) {
        try {
            if (Files.isDirectory(path)) {
                Path file = path.resolve(RESOURCE);
                if (Files.isRegularFile(file)) {
                    try (InputStream in = Files.newInputStream(file)) {
                        Properties props = new Properties();
                        props.load(in);
                        return props;
                    }
                }
            } else if (Files.isRegularFile(path)) {
                try (ZipFile zip = new ZipFile(path.toFile())) {
                    ZipEntry e = zip.getEntry(RESOURCE);
                    if (e != null) {
                        try (InputStream in = zip.getInputStream(e)) {
                            Properties props = new Properties();
                            props.load(in);
                            return props;
                        }
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("Could not read {} from {}", RESOURCE, path, e);
        }
        return null;
    }

    public static String getVersion() {
        return OUR_FULL_VERSION.getVersion();
    }

    public static String getRevision() {
        return OUR_FULL_VERSION.getRevision();
    }

    public static String getBranch() {
        return OUR_FULL_VERSION.getBranch();
    }

    public static String getDate() {
        return OUR_FULL_VERSION.getDate();
    }

    public static String getSrcChecksum() {
        return OUR_FULL_VERSION.getSrcChecksum();
    }

    public static String getBuildVersion() {
        return OUR_FULL_VERSION.getBuildVersion();
    }

    /** Prints the version facts, one per line, as {@code storm version} does. */
    public static void main(String[] args) {
        System.out.println("Storm " + getVersion());
        System.out.println("URL " + getBranch() + " -r " + getRevision());
        System.out.println("Branch " + getBranch());
        System.out.println("Compiled by on " + getDate());
        System.out.println("From source with checksum " + getSrcChecksum());
    }

    private static final class PropertiesVersionInfo implements IVersionInfo {
        private final Properties props;

        PropertiesVersionInfo(Properties props) {
            this.props = props;
        }

        private String get(String key) {
            String v = props.getProperty(key);
            return v == null || v.isBlank() ? UNKNOWN : v.strip();
        }

        @Override
        public String getVersion() {
            return get("version");
        }

        @Override
        public String getRevision() {
            return get("revision");
        }

        @Override
        public String getBranch() {
            return get("branch");
        }

        @Override
        public String getDate() {
            return get("date");
        }

        @Override
        public String getSrcChecksum() {
            return get("srcChecksum");
        }

        @Override
        public String getBuildVersion() {
            return getVersion() + " from " + getRevision() + " source checksum " + getSrcChecksum();
        }

        @Override
        public String toString() {
            return getBuildVersion();
        }
    }
}

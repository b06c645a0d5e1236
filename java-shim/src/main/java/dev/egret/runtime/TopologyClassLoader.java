package dev.egret.runtime;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The class loader of a topology's own jars (its jar, then {@code
 * egret.instance.classpath.extra}) in the JVMs Egret starts for it: the submitter, each
 * instance JVM and the JNI bridge's embedded JVM. The shim stays on the application class path,
 * which is this loader's parent, so the shim's classes win over copies in the jar, as they did
 * when both were on one class path; one such loader per JVM, as Storm's worker has one class
 * path per topology.
 *
 * <p>Why not the class path itself: the JDK keeps each jar's central directory on the heap
 * (about 15 MiB for a fat jar of 126 000 entries, in every JVM); this loader reads it into a
 * {@link JarIndex} of 20 bytes per entry. The jars come from the system property {@value
 * #PROPERTY} (paths joined with the path separator); {@link #install()} builds the loader once
 * and makes it the thread's context class loader, through which the shim resolves every user
 * class by name (components, groupings, serializers, Java deserialization, {@code
 * ServiceLoader}). Resources have {@code jar:file:...!/name} URLs, as from the JDK's loaders;
 * they are read through this loader's index, and only a caller that asks a connection for its
 * {@link JarFile} opens the jar the JDK's way. {@link #getURLs()} lists the jars.
 */
public final class TopologyClassLoader extends URLClassLoader {
    /** The system property naming the topology's jars. */
    public static final String PROPERTY = "egret.topology.classpath";

    static {
        ClassLoader.registerAsParallelCapable();
    }

    private static volatile TopologyClassLoader installed;

    private final List<JarIndex> jars;
    private final List<CodeSource> sources;
    private final URLStreamHandler handler = new EntryHandler();

    /** A loader over {@code jars}, in order, below {@code parent}. */
    public TopologyClassLoader(List<Path> jars, ClassLoader parent) throws IOException {
        super(urls(jars), parent);
        List<JarIndex> opened = new ArrayList<>();
        List<CodeSource> codeSources = new ArrayList<>();
        try {
            for (Path p : jars) {
                JarIndex j = JarIndex.open(p);
                opened.add(j);
                codeSources.add(new CodeSource(j.url(), (CodeSigner[]) null));
            }
        } catch (IOException | RuntimeException e) {
            for (JarIndex j : opened) {
                j.close();
            }
            throw e;
        }
        this.jars = List.copyOf(opened);
        this.sources = List.copyOf(codeSources);
    }

    /**
     * The JVM's topology class loader, made the calling thread's context class loader (threads
     * it starts inherit it), built on the first call from {@value #PROPERTY}. When that property
     * is unset or empty (the topology's jar is on the class path), the calling thread's context
     * class loader is left as it is and returned (the application class loader if it has none).
     *
     * @throws UncheckedIOException naming the jar that cannot be read
     */
    public static ClassLoader install() {
        ClassLoader loader = current();
        Thread.currentThread().setContextClassLoader(loader);
        return loader;
    }

    /**
     * What {@link #install()} installs, without touching the calling thread: the topology class
     * loader, or without {@value #PROPERTY} the thread's context class loader (else the
     * application class loader).
     */
    public static ClassLoader current() {
        List<Path> paths = configuredJars();
        if (paths.isEmpty()) {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            return context != null ? context : TopologyClassLoader.class.getClassLoader();
        }
        TopologyClassLoader l = installed;
        if (l == null) {
            synchronized (TopologyClassLoader.class) {
                l = installed;
                if (l == null) {
                    try {
                        l = new TopologyClassLoader(paths, TopologyClassLoader.class.getClassLoader());
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot read the topology's jar: " + e.getMessage(), e);
                    }
                    installed = l;
                }
            }
        }
        return l;
    }

    /** The jars {@value #PROPERTY} names, in order (empty when unset). */
    public static List<Path> configuredJars() {
        String value = System.getProperty(PROPERTY, "");
        List<Path> out = new ArrayList<>();
        for (String entry : value.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                out.add(Path.of(entry));
            }
        }
        return out;
    }

    /** How many entries each jar's index holds, in order. */
    public int[] entryCounts() {
        return jars.stream().mapToInt(JarIndex::size).toArray();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String entry = name.replace('.', '/').concat(".class");
        for (int i = 0; i < jars.size(); i++) {
            JarIndex j = jars.get(i);
            byte[] bytes;
            try {
                JarIndex.Entry found = j.find(entry);
                if (found == null) {
                    continue;
                }
                bytes = j.read(found);
            } catch (IOException e) {
                throw new ClassNotFoundException(name + " (cannot read it from " + j.path() + ": " + e.getMessage() + ")", e);
            }
            definePackageOf(name, j);
            return defineClass(name, bytes, 0, bytes.length, sources.get(i));
        }
        throw new ClassNotFoundException(name);
    }

    private void definePackageOf(String className, JarIndex jar) {
        int dot = className.lastIndexOf('.');
        if (dot < 0) {
            return;
        }
        String pkg = className.substring(0, dot);
        if (getDefinedPackage(pkg) != null) {
            return;
        }
        try {
            Manifest m = jar.manifest();
            if (m != null) {
                definePackage(pkg, m, jar.url());
            } else {
                definePackage(pkg, null, null, null, null, null, null, null);
            }
        } catch (IllegalArgumentException e) {
            // Defined by another thread meanwhile.
        }
    }

    @Override
    public URL findResource(String name) {
        for (JarIndex j : jars) {
            try {
                JarIndex.Entry found = j.find(name);
                if (found != null) {
                    return j.entryUrl(found.name(), handler);
                }
            } catch (IOException e) {
                // Unreadable here: as the JDK's loaders, not found in this jar.
            }
        }
        return null;
    }

    @Override
    public Enumeration<URL> findResources(String name) throws IOException {
        List<URL> found = new ArrayList<>();
        for (JarIndex j : jars) {
            JarIndex.Entry entry = j.find(name);
            if (entry != null) {
                found.add(j.entryUrl(entry.name(), handler));
            }
        }
        return Collections.enumeration(found);
    }

    /** Reads through the index (the JDK's version would open each jar to track it). */
    @Override
    public InputStream getResourceAsStream(String name) {
        URL url = getResource(name);
        if (url == null) {
            return null;
        }
        try {
            return url.openStream();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        IOException failed = null;
        for (JarIndex j : jars) {
            try {
                j.close();
            } catch (IOException e) {
                failed = e;
            }
        }
        super.close();
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public String toString() {
        return "TopologyClassLoader" + jars.stream().map(j -> j.path().toString()).toList();
    }

    private static URL[] urls(List<Path> jars) throws MalformedURLException {
        URL[] out = new URL[jars.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = jars.get(i).toAbsolutePath().toUri().toURL();
        }
        return out;
    }

    /** The jar of a {@code jar:file:<jar>!/<entry>} URL of this loader, or null. */
    private JarIndex jarOf(URL u) {
        String spec = u.getFile();
        int bang = spec.indexOf("!/");
        if (bang < 0) {
            return null;
        }
        String file = spec.substring(0, bang);
        for (JarIndex j : jars) {
            if (j.url().toExternalForm().equals(file)) {
                return j;
            }
        }
        return null;
    }

    /** Opens this loader's {@code jar:} URLs through its indexes. */
    private final class EntryHandler extends URLStreamHandler {
        @Override
        protected URLConnection openConnection(URL u) throws IOException {
            JarIndex j = jarOf(u);
            if (j == null) {
                // A jar: URL built from one of ours naming another jar: the JDK opens it.
                return new URL(u.toExternalForm()).openConnection();
            }
            return new EntryConnection(u, j);
        }
    }

    /**
     * A connection to one entry. It is a {@link JarURLConnection}, so code that asks for the
     * jar file or the entry's attributes gets them (the JDK opens the jar for that, once).
     */
    private static final class EntryConnection extends JarURLConnection {
        private final JarIndex jar;
        private final String entry;
        private JarIndex.Entry at;

        EntryConnection(URL url, JarIndex jar) throws MalformedURLException {
            super(url);
            this.jar = jar;
            String spec = url.getFile();
            this.entry = JarIndex.decodePath(spec.substring(spec.indexOf("!/") + 2));
        }

        @Override
        public void connect() throws IOException {
            if (connected) {
                return;
            }
            if (!entry.isEmpty()) {
                at = jar.find(entry);
                if (at == null) {
                    throw new java.io.FileNotFoundException("JAR entry " + entry + " not found in " + jar.path());
                }
            }
            connected = true;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            connect();
            if (entry.isEmpty()) {
                throw new IOException("no entry name specified");
            }
            return jar.open(at);
        }

        @Override
        public long getContentLengthLong() {
            try {
                connect();
                return entry.isEmpty() ? -1 : jar.sizeOf(at);
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public int getContentLength() {
            long n = getContentLengthLong();
            return n > Integer.MAX_VALUE ? -1 : (int) n;
        }

        @Override
        public long getLastModified() {
            return jar.path().toFile().lastModified();
        }

        @Override
        public Manifest getManifest() {
            return jar.manifest() == null ? null : new Manifest(jar.manifest());
        }

        @Override
        public JarFile getJarFile() throws IOException {
            return jar.jarFile();
        }
    }
}

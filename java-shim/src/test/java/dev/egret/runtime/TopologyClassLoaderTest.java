package dev.egret.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology class loader reads what the JDK's own jar class loader reads, the same way
 * (same URLs, same bytes, same classes, packages and services), through its compact index.
 * Each check runs against a {@link URLClassLoader} over the same jar and parent.
 */
class TopologyClassLoaderTest {
    private static final String GREETER = "dev.egret.runtime.fixture.Greeter";
    private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();

    @TempDir
    Path dir;

    private static byte[] classBytes(String name) throws IOException {
        try (InputStream in = TopologyClassLoaderTest.class.getResourceAsStream(
                "/" + name.replace('.', '/') + ".class")) {
            assertNotNull(in, name);
            return in.readAllBytes();
        }
    }

    private static void put(ZipOutputStream out, String name, byte[] body, boolean stored) throws IOException {
        ZipEntry e = new ZipEntry(name);
        if (stored) {
            CRC32 crc = new CRC32();
            crc.update(body);
            e.setMethod(ZipEntry.STORED);
            e.setSize(body.length);
            e.setCompressedSize(body.length);
            e.setCrc(crc.getValue());
        }
        out.putNextEntry(e);
        out.write(body);
        out.closeEntry();
    }

    /** A topology-like jar: a class, stored and deflated resources, a service, versioned entries. */
    private Path appJar(boolean multiRelease) throws IOException {
        Manifest m = new Manifest();
        Attributes a = m.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(Attributes.Name.IMPLEMENTATION_TITLE, "fixture app");
        a.put(Attributes.Name.IMPLEMENTATION_VERSION, "7.1.2");
        if (multiRelease) {
            a.put(Attributes.Name.MULTI_RELEASE, "true");
        }
        Path jar = dir.resolve(multiRelease ? "app-mr.jar" : "app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), m)) {
            put(out, "dev/", new byte[0], false);
            put(out, GREETER.replace('.', '/') + ".class", classBytes(GREETER), false);
            put(out, "conf/stored.txt", "stored body".getBytes(StandardCharsets.UTF_8), true);
            put(out, "conf/deflated.txt", "deflated ".repeat(5000).getBytes(StandardCharsets.UTF_8), false);
            put(out, "conf/with space #1.txt", "spaced".getBytes(StandardCharsets.UTF_8), false);
            put(out, "conf/ünïcode.txt", "unicode".getBytes(StandardCharsets.UTF_8), false);
            put(out, "conf/empty.txt", new byte[0], false);
            put(out, "resources/words.txt", "base".getBytes(StandardCharsets.UTF_8), false);
            put(out, "META-INF/versions/9/resources/words.txt", "nine".getBytes(StandardCharsets.UTF_8), false);
            put(out, "META-INF/versions/9999/resources/words.txt", "future".getBytes(StandardCharsets.UTF_8), false);
            put(out, "META-INF/services/java.util.function.Supplier",
                    (GREETER + "\n").getBytes(StandardCharsets.UTF_8), false);
        }
        return jar;
    }

    private static byte[] read(URL u) throws IOException {
        try (InputStream in = u.openStream()) {
            return in.readAllBytes();
        }
    }

    private static final List<String> NAMES = List.of("conf/stored.txt", "conf/deflated.txt",
            "conf/with space #1.txt", "conf/ünïcode.txt", "conf/empty.txt", "resources/words.txt",
            "META-INF/MANIFEST.MF", "META-INF/services/java.util.function.Supplier",
            GREETER.replace('.', '/') + ".class", "dev/", "conf/absent.txt", "absent/");

    private static void assertSameAsTheJdk(Path jar) throws Exception {
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(jar), PLATFORM);
                URLClassLoader jdk = new URLClassLoader(new URL[] {jar.toUri().toURL()}, PLATFORM)) {
            for (String name : NAMES) {
                URL a = ours.getResource(name);
                URL b = jdk.getResource(name);
                if (b == null) {
                    assertNull(a, name);
                    assertNull(ours.getResourceAsStream(name), name);
                    assertTrue(Collections.list(ours.getResources(name)).isEmpty(), name);
                    continue;
                }
                assertNotNull(a, name);
                assertEquals(b.toExternalForm(), a.toExternalForm(), name);
                assertArrayEquals(read(b), read(a), name);
                try (InputStream s = ours.getResourceAsStream(name)) {
                    assertArrayEquals(read(b), s.readAllBytes(), name);
                }
                List<String> all = new ArrayList<>();
                for (URL u : Collections.list(ours.getResources(name))) {
                    all.add(u.toExternalForm());
                }
                assertEquals(List.of(b.toExternalForm()), all, name);
                // A URL built from ours as text opens with the JDK's handler, to the same bytes.
                assertArrayEquals(read(b), read(new URL(a.toExternalForm())), name);
            }

            Class<?> c = ours.loadClass(GREETER);
            assertSame(ours, c.getClassLoader());
            @SuppressWarnings("unchecked")
            Supplier<String> greeter = (Supplier<String>) c.getConstructor().newInstance();
            assertEquals("hello from TopologyClassLoader", greeter.get());
            assertEquals(jar.toUri().toURL(), c.getProtectionDomain().getCodeSource().getLocation());
            Package p = c.getPackage();
            Package q = jdk.loadClass(GREETER).getPackage();
            assertEquals(q.getImplementationVersion(), p.getImplementationVersion());
            assertEquals("7.1.2", p.getImplementationVersion());
            assertEquals(q.getImplementationTitle(), p.getImplementationTitle());
            assertThrows(ClassNotFoundException.class, () -> ours.loadClass("dev.egret.runtime.fixture.Absent"));

            List<String> services = new ArrayList<>();
            for (Supplier<?> s : ServiceLoader.load(Supplier.class, ours)) {
                services.add(s.getClass().getName() + "@" + (s.getClass().getClassLoader() == ours));
            }
            assertEquals(List.of(GREETER + "@true"), services);
            assertArrayEquals(new URL[] {jar.toUri().toURL()}, ours.getURLs());
        }
    }

    @Test
    void readsWhatTheJdksJarLoaderReads() throws Exception {
        assertSameAsTheJdk(appJar(false));
    }

    @Test
    void aMultiReleaseJarServesTheHighestVersionUpToThisJava() throws Exception {
        Path jar = appJar(true);
        assertSameAsTheJdk(jar);
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(jar), PLATFORM);
                TopologyClassLoader plain = new TopologyClassLoader(List.of(appJar(false)), PLATFORM)) {
            assertEquals("nine", new String(ours.getResourceAsStream("resources/words.txt").readAllBytes(),
                    StandardCharsets.UTF_8));
            // Without Multi-Release: true in the manifest, versioned entries are plain entries.
            assertEquals("base", new String(plain.getResourceAsStream("resources/words.txt").readAllBytes(),
                    StandardCharsets.UTF_8));
        }
    }

    @Test
    void aZip64JarOfMoreThan65535EntriesIsIndexedWhole() throws Exception {
        Path jar = dir.resolve("big.jar");
        int n = 70_000;
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar))) {
            out.setLevel(1);
            for (int i = 0; i < n; i++) {
                put(out, String.format("r/%05d.txt", i), ("entry " + i).getBytes(StandardCharsets.UTF_8), i % 3 == 0);
            }
        }
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(jar), PLATFORM)) {
            assertArrayEquals(new int[] {n}, ours.entryCounts());
            for (int i : new int[] {0, 1, 2, 65_534, 65_535, 65_536, n - 1}) {
                URL u = ours.getResource(String.format("r/%05d.txt", i));
                assertNotNull(u, "entry " + i);
                assertEquals("entry " + i, new String(read(u), StandardCharsets.UTF_8));
            }
            assertNull(ours.getResource(String.format("r/%05d.txt", n)));
        }
    }

    @Test
    void theJarFileIsOpenedOnlyForCallersWhoAskForIt() throws Exception {
        Path jar = appJar(false);
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(jar), PLATFORM)) {
            URL u = ours.getResource("conf/deflated.txt");
            JarURLConnection c = (JarURLConnection) u.openConnection();
            assertEquals("conf/deflated.txt", c.getEntryName());
            assertEquals("deflated ".repeat(5000).length(), c.getContentLengthLong());
            assertEquals("7.1.2", c.getManifest().getMainAttributes().getValue(Attributes.Name.IMPLEMENTATION_VERSION));
            assertEquals(u.toExternalForm(), c.getURL().toExternalForm());
            assertNotNull(c.getJarFile().getEntry("conf/stored.txt"));
            assertNotNull(c.getJarEntry());
        }
    }

    @Test
    void aJarThatIsNoZipIsRefusedNamingIt() throws Exception {
        Path bad = dir.resolve("broken.jar");
        Files.writeString(bad, "this is not a zip file, only text that is long enough to scan");
        IOException e = assertThrows(IOException.class, () -> new TopologyClassLoader(List.of(bad), PLATFORM));
        assertTrue(e.getMessage().contains("broken.jar"), e.getMessage());
        assertTrue(e.getMessage().contains("not a zip file"), e.getMessage());
        Path cut = dir.resolve("cut.jar");
        byte[] whole = Files.readAllBytes(appJar(false));
        try (OutputStream out = Files.newOutputStream(cut)) {
            out.write(whole, 0, whole.length - 30);
        }
        assertThrows(IOException.class, () -> new TopologyClassLoader(List.of(cut), PLATFORM));
    }

    @Test
    void laterJarsAreSearchedAfterEarlierOnes() throws Exception {
        Path first = appJar(false);
        Path second = dir.resolve("second.jar");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(second))) {
            put(out, "conf/stored.txt", "second".getBytes(StandardCharsets.UTF_8), false);
            put(out, "only/second.txt", "only".getBytes(StandardCharsets.UTF_8), false);
        }
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(first, second), PLATFORM)) {
            assertEquals("stored body", new String(read(ours.getResource("conf/stored.txt")), StandardCharsets.UTF_8));
            assertEquals(2, Collections.list(ours.getResources("conf/stored.txt")).size());
            assertEquals("only", new String(read(ours.getResource("only/second.txt")), StandardCharsets.UTF_8));
        }
    }

    @Test
    void anInterruptedReaderLeavesTheJarReadableForEveryoneElse() throws Exception {
        Path jar = appJar(false);
        try (TopologyClassLoader ours = new TopologyClassLoader(List.of(jar), PLATFORM)) {
            Thread.currentThread().interrupt();
            try {
                // A FileChannel would throw ClosedByInterruptException here, and stay closed.
                assertEquals("stored body", new String(read(ours.getResource("conf/stored.txt")),
                        StandardCharsets.UTF_8));
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is left to its owner");
            }
            assertNotNull(ours.loadClass(GREETER));
            assertEquals("spaced", new String(read(ours.getResource("conf/with space #1.txt")), StandardCharsets.UTF_8));
        }
    }

    @Test
    void withoutThePropertyTheContextClassLoaderStays() {
        String before = System.getProperty(TopologyClassLoader.PROPERTY);
        System.clearProperty(TopologyClassLoader.PROPERTY);
        Thread thread = Thread.currentThread();
        ClassLoader saved = thread.getContextClassLoader();
        ClassLoader own = new ClassLoader(PLATFORM) {
        };
        try {
            assertTrue(TopologyClassLoader.configuredJars().isEmpty());
            thread.setContextClassLoader(own);
            assertSame(own, TopologyClassLoader.install());
            assertSame(own, thread.getContextClassLoader());
            thread.setContextClassLoader(null);
            assertSame(TopologyClassLoader.class.getClassLoader(), TopologyClassLoader.current());
        } finally {
            thread.setContextClassLoader(saved);
            if (before != null) {
                System.setProperty(TopologyClassLoader.PROPERTY, before);
            }
        }
    }

    @Test
    void namesAreEscapedInUrlsAsTheJdkEscapesThem() {
        assertEquals("a/b%20c%23d.txt", JarIndex.encodePath("a/b c#d.txt"));
        assertEquals("%c3%bc", JarIndex.encodePath("ü"));
        assertEquals("a/b c#d.txt", JarIndex.decodePath("a/b%20c%23d.txt"));
        assertEquals("ü", JarIndex.decodePath("%C3%BC"));
    }
}

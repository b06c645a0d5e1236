package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's resources/ entries are listed once per JVM and jar version, for every executor's extraction. */
class CodeDirListingTest {
    @TempDir
    Path tmp;

    @Test
    void theListingIsSharedUntilTheJarChanges() throws Exception {
        Path jar = tmp.resolve("user.jar");
        write(jar, "resources/a.txt", "com/acme/Main.class");
        List<String> first;
        try (JarFile jf = new JarFile(jar.toFile())) {
            first = CodeDir.resourceEntries(jar.toFile(), jf);
        }
        assertEquals(List.of("resources/a.txt"), first);
        // Two executors' extractions into their own directories: one listing, both extracted.
        assertEquals(1, CodeDir.extractFrom(jar.toFile(), tmp.resolve("w1/resources")));
        assertEquals(1, CodeDir.extractFrom(jar.toFile(), tmp.resolve("w2/resources")));
        try (JarFile jf = new JarFile(jar.toFile())) {
            assertSame(first, CodeDir.resourceEntries(jar.toFile(), jf));
        }
        assertEquals("resources/a.txt", Files.readString(tmp.resolve("w2/resources/a.txt")));

        // A new jar at the same path (a resubmitted topology) is listed again.
        write(jar, "resources/a.txt", "resources/b.txt");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        File again = jar.toFile();
        try (JarFile jf = new JarFile(again)) {
            List<String> second = CodeDir.resourceEntries(again, jf);
            assertNotSame(first, second);
            assertEquals(List.of("resources/a.txt", "resources/b.txt"), second);
        }
        assertEquals(2, CodeDir.extractFrom(again, tmp.resolve("w3/resources")));
    }

    private static void write(Path jar, String... names) throws Exception {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : names) {
                out.putNextEntry(new JarEntry(name));
                out.write(name.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
    }
}

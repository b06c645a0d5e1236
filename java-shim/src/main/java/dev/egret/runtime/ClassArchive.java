package dev.egret.runtime;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.management.ManagementFactory;
import java.net.StandardProtocolFamily;
import java.net.URISyntaxException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The training run of the shim's class-data-sharing archive ({@code egret-shim.jsa} beside
 * the shim jar; contracts.md, "Instance JVMs"), run as {@code java
 * -XX:ArchiveClassesAtExit=egret-shim.jsa -cp egret-shim.jar dev.egret.runtime.ClassArchive
 * [class list...]}. With class lists ({@code -XX:DumpLoadedClassList} of real starts, as
 * {@code ./egret-dev build} records them), it loads, without initializing, the classes they
 * name; without, every class of the shim jar (twice the resident memory per JVM). Either way
 * it also touches the JDK classes every Egret JVM uses as it starts (secure random numbers,
 * date formatting, management beans, Java serialization, thread pools, a Unix socket
 * channel), so that the JVM writes them all into the archive when it exits. The submitter JVM
 * and the JNI bridge's embedded JVM, started with {@code -XX:SharedArchiveFile}, then map those
 * classes instead of parsing and verifying them again, which is most of a JVM's start on a
 * busy machine.
 */
public final class ClassArchive {
    private ClassArchive() {
    }

    public static void main(String[] args) throws Exception {
        File shim = ownJar();
        int loaded = 0;
        int refused = 0;
        ClassLoader loader = ClassArchive.class.getClassLoader();
        if (args.length > 0) {
            // Class lists (-XX:DumpLoadedClassList) of real starts: only the classes they name.
            for (String list : args) {
                for (String line : Files.readAllLines(Path.of(list))) {
                    String name = line.split(" ", 2)[0];
                    if (name.isEmpty() || name.startsWith("#") || name.startsWith("@")) {
                        continue;
                    }
                    try {
                        Class.forName(name.replace('/', '.'), false, loader);
                        loaded++;
                    } catch (LinkageError | ClassNotFoundException ex) {
                        refused++;
                    }
                }
            }
            touchTheJdk();
            System.out.println("egret: " + loaded + " classes of the class lists loaded for the class archive ("
                    + refused + " not on this class path)");
            return;
        }
        try (JarFile jar = new JarFile(shim)) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/") || name.endsWith("module-info.class")) {
                    continue;
                }
                try {
                    Class.forName(name.substring(0, name.length() - ".class".length()).replace('/', '.'), false, loader);
                    loaded++;
                } catch (LinkageError | ClassNotFoundException ex) {
                    // A class whose optional dependency is absent: it is loaded, if ever, at run time.
                    refused++;
                }
            }
        }
        touchTheJdk();
        System.out.println("egret: " + loaded + " classes of " + shim.getName() + " loaded for the class archive ("
                + refused + " could not be loaded without their optional dependencies)");
    }

    private static File ownJar() throws URISyntaxException {
        File f = new File(ClassArchive.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!f.isFile()) {
            throw new IllegalStateException("the class archive is trained from the shim jar, not from " + f);
        }
        return f;
    }

    private static void touchTheJdk() throws IOException, ClassNotFoundException, InterruptedException {
        new SecureRandom().nextLong();
        DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(ZonedDateTime.now());
        ManagementFactory.getRuntimeMXBean().getUptime();
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        ManagementFactory.getThreadMXBean().getThreadCount();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(b -> b.getCollectionCount());
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Map<String, Object> map = new HashMap<>();
        map.put("k", 1L);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(map);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            in.readObject();
        }
        ScheduledExecutorService pool = Executors.newSingleThreadScheduledExecutor();
        pool.schedule(() -> { }, 1, TimeUnit.MILLISECONDS);
        CompletableFuture.runAsync(() -> { }, pool).join();
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.isOpen();
        }
        System.getenv().size();
        "a,b".split(",");
    }
}

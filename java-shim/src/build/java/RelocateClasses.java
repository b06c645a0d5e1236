import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.Remapper;

/**
 * Build step: writes a library's classes, relocated, into the shim's class output before
 * compilation. Storm's API names some third-party types under Storm's relocated packages
 * (Apache Thrift as {@code org.apache.storm.thrift}, ZooKeeper's jute records as
 * {@code org.apache.storm.shade.org.apache.zookeeper}, as storm-shaded-deps ships them); the
 * shim's own sources use those names, so the relocation has to exist before javac, and then
 * the unit tests, the API check and the shaded jar all see the same classes. The libraries
 * themselves are never dependencies of the shim, so no unrelocated copy reaches egret-shim.jar.
 *
 * <p>Like the shade plugin, string constants naming a relocated class are relocated too.
 *
 * <p>Usage (JDK source launcher, ASM and ASM commons on the class path):
 * {@code java RelocateClasses.java <library.jar> <classes dir> <from>=<to>... [-include <prefix>]...
 * [-drop <class>]...}: every class of the jar under a {@code from} package is written under its
 * {@code to} (all of them, or only those under an {@code -include} prefix), except the
 * {@code -drop}ped ones (with their nested classes). Package names are internal
 * ({@code org/apache/thrift/}). Idempotent.
 */
public final class RelocateClasses {
  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      throw new IllegalArgumentException(
          "usage: RelocateClasses <library.jar> <classes dir> <from>=<to>... [-include <prefix>]... [-drop <class>]...");
    }
    Path out = Paths.get(args[1]);
    Map<String, String> packages = new LinkedHashMap<>();
    List<String> includes = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      if (args[i].equals("-include") && i + 1 < args.length) {
        includes.add(args[++i]);
      } else if (args[i].equals("-drop") && i + 1 < args.length) {
        dropped.add(args[++i]);
      } else if (args[i].contains("=")) {
        String[] fromTo = args[i].split("=", 2);
        packages.put(fromTo[0], fromTo[1]);
      } else {
        throw new IllegalArgumentException("not a <from>=<to> relocation: " + args[i]);
      }
    }
    Remapper remapper = new Remapper() {
      @Override
      public String map(String internalName) {
        String to = relocated(packages, internalName);
        return to == null ? internalName : to;
      }

      @Override
      public Object mapValue(Object value) {
        if (value instanceof String s) {
          String to = relocated(packages, s.replace('.', '/'));
          if (to != null && s.indexOf('/') < 0) {
            return to.replace('/', '.');
          }
        }
        return super.mapValue(value);
      }
    };
    int written = 0;
    try (ZipFile jar = new ZipFile(args[0])) {
      for (Enumeration<? extends ZipEntry> it = jar.entries(); it.hasMoreElements(); ) {
        ZipEntry e = it.nextElement();
        String name = e.getName();
        String target = relocated(packages, name);
        if (e.isDirectory() || target == null || !name.endsWith(".class")
            || !included(includes, name) || dropped(dropped, name)) {
          continue;
        }
        byte[] relocated;
        try (InputStream in = jar.getInputStream(e)) {
          ClassReader reader = new ClassReader(in);
          ClassWriter writer = new ClassWriter(0);
          reader.accept(new ClassRemapper(writer, remapper), 0);
          relocated = writer.toByteArray();
        }
        Path path = out.resolve(target);
        Files.createDirectories(path.getParent());
        Files.write(path, relocated);
        written++;
      }
    }
    if (written == 0) {
      throw new IllegalStateException("no classes to relocate in " + args[0] + " for " + packages.keySet());
    }
  }

  /** The relocated name of an internal name or entry, or null when no relocation applies. */
  private static String relocated(Map<String, String> packages, String name) {
    for (Map.Entry<String, String> p : packages.entrySet()) {
      if (name.startsWith(p.getKey())) {
        return p.getValue() + name.substring(p.getKey().length());
      }
    }
    return null;
  }

  private static boolean included(List<String> includes, String entry) {
    return includes.isEmpty() || includes.stream().anyMatch(entry::startsWith);
  }

  private static boolean dropped(List<String> dropped, String entry) {
    return dropped.stream().anyMatch(c -> entry.startsWith(c + ".") || entry.startsWith(c + "$"));
  }
}

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.Remapper;

/**
 * Build step: writes Apache Thrift's Java library relocated from {@code org.apache.thrift} to
 * {@code org.apache.storm.thrift} (the relocation of Storm's storm-shaded-deps) into the
 * shim's class output, before compilation. The shim's sources and the Thrift-generated
 * {@code org.apache.storm.generated} types refer to the relocated names, so javac, the unit
 * tests, the API check and the shaded jar all see the same classes; libthrift itself is never
 * a dependency of the shim (so no unrelocated copy can reach egret-shim.jar).
 *
 * <p>Dropped: the HTTP client and servlet transports, whose libraries (httpclient5, jakarta
 * servlet) the shim does not ship; nothing else in libthrift refers to them. Like the shade
 * plugin, string constants naming a relocated class are relocated too.
 *
 * <p>Usage (JDK source launcher, ASM and ASM commons on the class path):
 * {@code java RelocateThrift.java libthrift.jar target/classes}. Idempotent.
 */
public final class RelocateThrift {
  private static final String FROM = "org/apache/thrift/";
  private static final String TO = "org/apache/storm/thrift/";
  private static final List<String> DROPPED = List.of(
      "org/apache/thrift/transport/THttpClient",
      "org/apache/thrift/THttpClientResponseHandler",
      "org/apache/thrift/server/TServlet",
      "org/apache/thrift/server/TExtensibleServlet");

  public static void main(String[] args) throws IOException {
    Path out = Paths.get(args[1]);
    Remapper remapper = new Remapper() {
      @Override
      public String map(String internalName) {
        return internalName.startsWith(FROM) ? TO + internalName.substring(FROM.length()) : internalName;
      }

      @Override
      public Object mapValue(Object value) {
        if (value instanceof String s && s.startsWith("org.apache.thrift.")) {
          return "org.apache.storm.thrift." + s.substring("org.apache.thrift.".length());
        }
        return super.mapValue(value);
      }
    };
    int written = 0;
    try (ZipFile jar = new ZipFile(args[0])) {
      for (Enumeration<? extends ZipEntry> it = jar.entries(); it.hasMoreElements(); ) {
        ZipEntry e = it.nextElement();
        String name = e.getName();
        if (e.isDirectory() || !name.startsWith(FROM) || !name.endsWith(".class") || dropped(name)) {
          continue;
        }
        byte[] relocated;
        try (InputStream in = jar.getInputStream(e)) {
          ClassReader reader = new ClassReader(in);
          ClassWriter writer = new ClassWriter(0);
          reader.accept(new ClassRemapper(writer, remapper), 0);
          relocated = writer.toByteArray();
        }
        Path target = out.resolve(TO + name.substring(FROM.length()));
        Files.createDirectories(target.getParent());
        Files.write(target, relocated);
        written++;
      }
    }
    if (written == 0) {
      throw new IllegalStateException("no org.apache.thrift classes in " + args[0]);
    }
  }

  private static boolean dropped(String entry) {
    for (String prefix : DROPPED) {
      if (entry.startsWith(prefix + ".") || entry.startsWith(prefix + "$")) {
        return true;
      }
    }
    return false;
  }
}

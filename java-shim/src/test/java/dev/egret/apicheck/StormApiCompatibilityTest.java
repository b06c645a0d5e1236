package dev.egret.apicheck;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The mechanical API check: every public or protected member of every class in
 * {@code api-check/classes.txt}, as the real {@code storm-client} jar declares
 * it, must exist in the shim with the same erased descriptor, the same
 * static-ness, and the class must have the same kind (class or interface) and
 * superclass. A jar compiled against storm-client then links against the shim.
 *
 * <p>Members the shim does not provide yet are listed, one per line, in
 * {@code api-check/known-gaps.txt}; anything missing and not listed fails the
 * test. The coverage report is written to {@code docs/api-coverage.md}.
 *
 * <p>The class count: for every package the check covers (those of {@code classes.txt} plus
 * {@link #EXTRA_PACKAGES}), every public top-level class of storm-client must be in the shim
 * and in {@code classes.txt}, or be listed with its reason in
 * {@code api-check/out-of-scope-classes.txt}; a listed class that the shim has fails as a
 * stale entry.
 */
class StormApiCompatibilityTest {

  /** Packages covered by the class count although classes.txt has no class of them yet. */
  static final List<String> EXTRA_PACKAGES = List.of("org.apache.storm.metrics2.reporters", "org.apache.storm.metrics2.filters");

  @Test
  void shimMatchesStormClientOverTheDeclaredClasses() throws IOException {
    Path stormJar = Paths.get(requiredProperty("egret.apicheck.storm.jar"));
    Path shimClasses = Paths.get(requiredProperty("egret.apicheck.shim.classes"));
    assertTrue(Files.exists(stormJar), "storm-client jar not found: " + stormJar);
    List<String> classes = readList("api-check/classes.txt");
    Set<String> knownGaps = new TreeSet<>(readList("api-check/known-gaps.txt"));

    Map<String, ClassApi> storm = javap(stormJar.toString(), classes);
    Map<String, ClassApi> shim = javap(shimClasses.toString(), classes);

    List<String> unexpected = new ArrayList<>();
    Map<String, int[]> perPackage = new TreeMap<>();
    Map<String, List<String>> missingPerClass = new LinkedHashMap<>();
    Set<String> gapsSeen = new TreeSet<>();
    for (String name : classes) {
      ClassApi reference = storm.get(name);
      if (reference == null) {
        unexpected.add(name + ": not in storm-client (fix classes.txt)");
        continue;
      }
      String pkg = name.substring(0, name.lastIndexOf('.'));
      int[] counts = perPackage.computeIfAbsent(pkg, k -> new int[2]);
      ClassApi ours = shim.get(name);
      List<String> missing = new ArrayList<>();
      if (ours == null) {
        missing.add("(class missing)");
      } else {
        if (!reference.kind.equals(ours.kind)) {
          unexpected.add(name + ": is a " + ours.kind + " in the shim, a " + reference.kind + " in Storm");
        }
        if (!reference.superclass.equals(ours.superclass)) {
          unexpected.add(name + ": extends " + ours.superclass + " in the shim, " + reference.superclass + " in Storm");
        }
        for (String member : reference.members) {
          if (!ours.members.contains(member)) {
            missing.add(member);
          }
        }
      }
      int total = reference.members.size() + 1;
      counts[1] += total;
      counts[0] += ours == null ? 0 : total - missing.size();
      for (String member : missing) {
        String key = name + " " + member;
        if (knownGaps.contains(key) || knownGaps.contains(name + " *")) {
          gapsSeen.add(knownGaps.contains(key) ? key : name + " *");
        } else {
          unexpected.add(key);
        }
      }
      if (!missing.isEmpty()) {
        missingPerClass.put(name, missing);
      }
    }
    ClassCount classCount = checkClassCount(stormJar, Paths.get(requiredProperty("egret.apicheck.shim.classes")),
        classes, unexpected);
    writeReport(classes.size(), perPackage, missingPerClass, classCount);
    for (String gap : knownGaps) {
      if (!gapsSeen.contains(gap)) {
        unexpected.add("known-gaps.txt lists a member that is no longer missing (remove it): " + gap);
      }
    }
    if (!unexpected.isEmpty()) {
      fail("The shim does not match storm-client:\n  " + String.join("\n  ", unexpected));
    }
  }

  /** The shim's defaults.yaml holds every key of storm-client's, with the same value. */
  @Test
  void defaultsYamlHasEveryStormDefault() throws IOException {
    Path stormJar = Paths.get(requiredProperty("egret.apicheck.storm.jar"));
    Map<String, Object> storm;
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(stormJar.toFile());
        InputStream in = zip.getInputStream(zip.getEntry("defaults.yaml"))) {
      storm = new org.yaml.snakeyaml.Yaml().load(in);
    }
    Map<String, Object> ours = org.apache.storm.utils.Utils.readDefaultConfig();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Object> e : new TreeMap<>(storm).entrySet()) {
      if (!ours.containsKey(e.getKey())) {
        problems.add("missing: " + e.getKey());
      } else if (!java.util.Objects.equals(String.valueOf(e.getValue()), String.valueOf(ours.get(e.getKey())))) {
        problems.add("differs: " + e.getKey() + " = " + ours.get(e.getKey()) + " (Storm: " + e.getValue() + ")");
      }
    }
    if (!problems.isEmpty()) {
      fail("defaults.yaml does not match storm-client's:\n  " + String.join("\n  ", problems));
    }
  }

  private static String requiredProperty(String key) {
    String value = System.getProperty(key);
    if (value == null || value.isEmpty()) {
      fail("system property " + key + " is not set (see java-shim/pom.xml, surefire configuration)");
    }
    return value;
  }

  private static List<String> readList(String resource) throws IOException {
    List<String> out = new ArrayList<>();
    try (InputStream in = StormApiCompatibilityTest.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        fail("test resource missing: " + resource);
      }
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String trimmed = line.strip();
        if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
          out.add(trimmed);
        }
      }
    }
    return out;
  }

  /** One class as javap shows it: kind, superclass, and its members as "[static ]name descriptor". */
  static final class ClassApi {
    String kind = "";
    String superclass = "java.lang.Object";
    final Set<String> members = new TreeSet<>();
  }

  static Map<String, ClassApi> javap(String classpath, List<String> classes) {
    ToolProvider javap =
        ToolProvider.findFirst("javap").orElseThrow(() -> new IllegalStateException("javap is not available in this JDK"));
    Map<String, ClassApi> result = new TreeMap<>();
    for (String name : classes) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code =
          javap.run(new PrintWriter(out), new PrintWriter(err), "-protected", "-s", "-cp", classpath, name);
      if (code != 0) {
        continue; // class absent from this side
      }
      result.put(name, parse(name, out.toString()));
    }
    return result;
  }

  static ClassApi parse(String className, String text) {
    ClassApi api = new ClassApi();
    String simple = className.substring(className.lastIndexOf('.') + 1);
    String pending = null;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.startsWith("Compiled from")) {
        continue;
      }
      if (api.kind.isEmpty() && (line.contains(" class ") || line.contains(" interface ") || line.startsWith("class ") || line.startsWith("interface "))) {
        api.kind = line.contains("interface ") ? "interface" : "class";
        int ext = line.indexOf(" extends ");
        if (api.kind.equals("class") && ext >= 0) {
          String rest = line.substring(ext + " extends ".length());
          api.superclass = eraseGenerics(rest.split("[ {]")[0]);
        }
        continue;
      }
      if (line.startsWith("descriptor:") && pending != null) {
        api.members.add(pending + " " + line.substring("descriptor:".length()).strip());
        pending = null;
        continue;
      }
      if (line.endsWith(";") && (line.startsWith("public") || line.startsWith("protected"))) {
        String decl = line.substring(0, line.length() - 1);
        boolean isStatic = decl.matches(".*\\bstatic\\b.*");
        String memberName;
        int paren = decl.indexOf('(');
        if (paren >= 0) {
          String head = decl.substring(0, paren).strip();
          memberName = head.substring(head.lastIndexOf(' ') + 1);
          if (memberName.equals(className) || memberName.endsWith("." + simple) || memberName.equals(simple)) {
            memberName = "<init>";
          }
        } else {
          memberName = decl.substring(decl.lastIndexOf(' ') + 1);
        }
        pending = (isStatic ? "static " : "") + memberName;
      }
    }
    return api;
  }

  private static String eraseGenerics(String type) {
    int lt = type.indexOf('<');
    return lt >= 0 ? type.substring(0, lt) : type;
  }

  /** The outcome of the class count, for the report. */
  static final class ClassCount {
    final Map<String, int[]> perPackage = new TreeMap<>(); // present, out of scope, in Storm
    final Map<String, String> outOfScope = new TreeMap<>();
    int present;
    int total;
  }

  static ClassCount checkClassCount(Path stormJar, Path shimClasses, List<String> classes, List<String> unexpected)
      throws IOException {
    Set<String> packages = new TreeSet<>(EXTRA_PACKAGES);
    for (String name : classes) {
      packages.add(name.substring(0, name.lastIndexOf('.')));
    }
    Set<String> declared = new TreeSet<>(classes);
    Set<String> stormPublic = publicTopLevelClassesOfJar(stormJar, packages);
    Set<String> shimPublic = publicTopLevelClassesOfDir(shimClasses, packages);
    Map<String, String> outOfScope = readReasons("api-check/out-of-scope-classes.txt", unexpected);
    ClassCount count = new ClassCount();
    count.outOfScope.putAll(outOfScope);
    for (String pkg : packages) {
      count.perPackage.put(pkg, new int[3]);
    }
    for (String name : stormPublic) {
      int[] c = count.perPackage.get(name.substring(0, name.lastIndexOf('.')));
      c[2]++;
      count.total++;
      boolean listed = outOfScope.containsKey(name);
      if (shimPublic.contains(name)) {
        c[0]++;
        count.present++;
        if (listed) {
          unexpected.add(name + ": the shim has it, but out-of-scope-classes.txt lists it (remove the stale entry)");
        }
        if (!declared.contains(name)) {
          unexpected.add(name + ": the shim has it but classes.txt does not list it (add it, so its members are checked)");
        }
      } else if (listed) {
        c[1]++;
      } else {
        unexpected.add(name + ": public in storm-client, missing in the shim and not in out-of-scope-classes.txt"
            + " (provide it, or list it with its reason)");
      }
    }
    for (String name : outOfScope.keySet()) {
      if (!stormPublic.contains(name)) {
        unexpected.add("out-of-scope-classes.txt lists " + name
            + ", which is not a public top-level class of storm-client in a covered package");
      }
    }
    return count;
  }

  /** "name reason" lines (blank lines and # comments skipped); a line without a reason fails. */
  private static Map<String, String> readReasons(String resource, List<String> unexpected) throws IOException {
    Map<String, String> out = new TreeMap<>();
    for (String line : readList(resource)) {
      String[] parts = line.split("\\s+", 2);
      if (parts.length < 2 || parts[1].isBlank()) {
        unexpected.add(resource + ": " + parts[0] + " has no reason");
        continue;
      }
      if (out.put(parts[0], parts[1].strip()) != null) {
        unexpected.add(resource + ": " + parts[0] + " is listed twice");
      }
    }
    return out;
  }

  static Set<String> publicTopLevelClassesOfJar(Path jar, Set<String> packages) throws IOException {
    Set<String> out = new TreeSet<>();
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
      java.util.Enumeration<? extends java.util.zip.ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        java.util.zip.ZipEntry e = entries.nextElement();
        String name = topLevelClassName(e.getName(), packages);
        if (name != null) {
          try (InputStream in = zip.getInputStream(e)) {
            if (isPublic(in.readAllBytes(), e.getName())) {
              out.add(name);
            }
          }
        }
      }
    }
    return out;
  }

  static Set<String> publicTopLevelClassesOfDir(Path dir, Set<String> packages) throws IOException {
    Set<String> out = new TreeSet<>();
    for (String pkg : packages) {
      Path pkgDir = dir.resolve(pkg.replace('.', '/'));
      if (!Files.isDirectory(pkgDir)) {
        continue;
      }
      try (java.util.stream.Stream<Path> files = Files.list(pkgDir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          String entry = dir.relativize(f).toString().replace(java.io.File.separatorChar, '/');
          String name = topLevelClassName(entry, packages);
          if (name != null && isPublic(Files.readAllBytes(f), entry)) {
            out.add(name);
          }
        }
      }
    }
    return out;
  }

  /** The class name of a top-level class file directly in one of the packages, else null. */
  private static String topLevelClassName(String entry, Set<String> packages) {
    if (!entry.endsWith(".class") || entry.contains("$") || entry.contains("-")) {
      return null; // nested classes, package-info, module-info
    }
    String name = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
    int dot = name.lastIndexOf('.');
    return dot > 0 && packages.contains(name.substring(0, dot)) ? name : null;
  }

  /** Whether a class file's access flags (after the constant pool) have ACC_PUBLIC. */
  static boolean isPublic(byte[] b, String what) {
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b);
    if (b.length < 10 || buf.getInt(0) != 0xCAFEBABE) {
      throw new IllegalStateException(what + " is not a class file");
    }
    int count = buf.getShort(8) & 0xffff;
    int pos = 10;
    for (int i = 1; i < count; i++) {
      int tag = b[pos] & 0xff;
      switch (tag) {
        case 1 -> pos += 3 + (buf.getShort(pos + 1) & 0xffff); // Utf8
        case 3, 4, 9, 10, 11, 12, 17, 18 -> pos += 5;
        case 5, 6 -> {
          pos += 9; // Long, Double take two slots
          i++;
        }
        case 7, 8, 16, 19, 20 -> pos += 3;
        case 15 -> pos += 4;
        default -> throw new IllegalStateException(what + ": unknown constant pool tag " + tag);
      }
    }
    return (buf.getShort(pos) & 0x0001) != 0;
  }

  private static void writeReport(int classCount, Map<String, int[]> perPackage, Map<String, List<String>> missing,
      ClassCount classes) throws IOException {
    String target = System.getProperty("egret.apicheck.report");
    if (target == null || target.isEmpty()) {
      return;
    }
    StringBuilder md = new StringBuilder();
    md.append("# Storm API coverage (generated)\n\n");
    md.append("Written by `java-shim/src/test/java/dev/egret/apicheck/StormApiCompatibilityTest.java` on every\n");
    md.append("`mvn test` of the shim: the members of the declared classes (`java-shim/src/test/resources/api-check/classes.txt`)\n");
    md.append("as the real `storm-client` jar declares them, compared with the shim's. Do not edit by hand.\n\n");
    md.append("## Classes\n\n");
    md.append(classes.present).append(" of ").append(classes.total)
        .append(" public classes of storm-client's covered packages present; ")
        .append(classes.outOfScope.size()).append(" out of scope (listed with reasons)\n\n");
    md.append("The covered packages are those of `classes.txt` plus ")
        .append(String.join(", ", EXTRA_PACKAGES.stream().map(p -> "`" + p + "`").toList()))
        .append(". Every public top-level class of storm-client in them is in the shim (and checked member by member)")
        .append(" or listed with its reason in `java-shim/src/test/resources/api-check/out-of-scope-classes.txt`.\n\n");
    md.append("| package | classes present | out of scope | public classes in Storm |\n|---|---|---|---|\n");
    for (Map.Entry<String, int[]> e : classes.perPackage.entrySet()) {
      int[] c = e.getValue();
      md.append("| `").append(e.getKey()).append("` | ").append(c[0]).append(" | ").append(c[1]).append(" | ")
          .append(c[2]).append(" |\n");
    }
    md.append("\n## Members\n\n");
    md.append("Classes checked: ").append(classCount).append("\n\n");
    md.append("| package | members covered | members in Storm |\n|---|---|---|\n");
    for (Map.Entry<String, int[]> e : perPackage.entrySet()) {
      md.append("| `").append(e.getKey()).append("` | ").append(e.getValue()[0]).append(" | ").append(e.getValue()[1]).append(" |\n");
    }
    md.append("\n## Not yet provided\n\n");
    if (missing.isEmpty()) {
      md.append("Nothing: every member of the declared classes is provided.\n");
    }
    for (Map.Entry<String, List<String>> e : missing.entrySet()) {
      md.append("- `").append(e.getKey()).append("`: ");
      List<String> items = new ArrayList<>();
      for (String m : e.getValue()) {
        items.add("`" + m + "`");
      }
      md.append(String.join(", ", items)).append("\n");
    }
    md.append("\n## Out of scope\n\n");
    md.append("| class | reason |\n|---|---|\n");
    for (Map.Entry<String, String> e : classes.outOfScope.entrySet()) {
      md.append("| `").append(e.getKey()).append("` | ").append(e.getValue().replace("|", "\\|")).append(" |\n");
    }
    Path path = Paths.get(target);
    Files.createDirectories(path.getParent());
    Files.writeString(path, md.toString(), StandardCharsets.UTF_8);
  }
}

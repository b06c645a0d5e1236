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
 */
class StormApiCompatibilityTest {

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
    writeReport(classes.size(), perPackage, missingPerClass);
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

  private static void writeReport(int classCount, Map<String, int[]> perPackage, Map<String, List<String>> missing)
      throws IOException {
    String target = System.getProperty("egret.apicheck.report");
    if (target == null || target.isEmpty()) {
      return;
    }
    StringBuilder md = new StringBuilder();
    md.append("# Storm API coverage (generated)\n\n");
    md.append("Written by `java-shim/src/test/java/dev/egret/apicheck/StormApiCompatibilityTest.java` on every\n");
    md.append("`mvn test` of the shim: the members of the declared classes (`java-shim/src/test/resources/api-check/classes.txt`)\n");
    md.append("as the real `storm-client` jar declares them, compared with the shim's. Do not edit by hand.\n\n");
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
    Path path = Paths.get(target);
    Files.createDirectories(path.getParent());
    Files.writeString(path, md.toString(), StandardCharsets.UTF_8);
  }
}

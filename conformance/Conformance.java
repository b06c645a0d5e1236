// The conformance run: storm-client 2.8.3's own published unit tests against the shim.
//
// Run by conformance/run (which resolves the inputs with Maven first) as a single-file
// source program: java conformance/Conformance.java [options]. Only the JDK is needed here;
// the tests themselves run in child JVMs with JUnit's console launcher.
//
// What it does, in order:
//  1. lists the test classes of the tests jar (Surefire's default name patterns, top-level
//     classes only) and splits them into in scope (by package, SCOPE below) and out of scope
//     (conformance/out-of-scope.txt, each with its reason); a class that is neither stops the
//     run, so the list stays complete;
//  2. checks the classpath: no jar but the shim carries storm-client's classes, and
//     org.apache.storm.Config loads from the shim jar;
//  3. loads each in-scope class (without running it) to name what it misses when it cannot
//     link at all (such a class is not given to JUnit: a class that fails discovery could
//     fail the whole engine);
//  4. runs the others, one JVM per package, with a per-test timeout and a per-JVM one;
//  5. reads the XML reports, and compares the passes per class with the committed report:
//     a class that passes fewer is re-run alone once, and if it still passes fewer it is a
//     regression (exit 1, the committed report is left as it is, the new one is written
//     under the work directory); otherwise the report is (re)written.

import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.TimeUnit;
import java.util.regex.*;
import java.util.stream.*;
import java.util.zip.*;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.*;

public class Conformance {

    /** The in-scope packages (each with its subpackages) and single classes, as the issue lists them. */
    static final List<String> SCOPE_PACKAGES = List.of(
            "org.apache.storm.bolt", "org.apache.storm.grouping", "org.apache.storm.tuple",
            "org.apache.storm.windowing", "org.apache.storm.topology", "org.apache.storm.spout",
            "org.apache.storm.state", "org.apache.storm.serialization", "org.apache.storm.utils",
            "org.apache.storm.metric", "org.apache.storm.metrics2", "org.apache.storm.streams");
    static final List<String> SCOPE_CLASSES = List.of(
            "org.apache.storm.TestConfigValidate", "org.apache.storm.TestStormSubmitter");
    /** Surefire's default includes, as Storm's build runs them. */
    static final Pattern TEST_NAME = Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");
    /** Storm's unit-test run excludes these JUnit tags (storm 2.8.3's surefire excludedGroups). */
    static final List<String> EXCLUDED_TAGS = List.of("IntegrationTest", "PerformanceTest");

    // Options (paths relative to the repository root, where conformance/run starts us).
    static Path shim = Path.of("java-shim/target/egret-shim.jar");
    static Path inputs = Path.of("conformance/target");
    static Path outOfScopeFile = Path.of("conformance/out-of-scope.txt");
    static Path report = Path.of("docs/conformance.md");
    static Path work = Path.of("conformance/target/run");
    static String testTimeout = "30 s";
    static int jvmTimeoutSecs = 150;
    static boolean force = false;
    static Path referenceClasspath = null; // run against real Storm instead (no comparison)
    static String only = null;             // only classes whose name contains this (no comparison)
    /** Per class, the passes and tests on the real storm-client (written by --reference runs). */
    static Path referenceFile = Path.of("conformance/storm-reference.tsv");
    static final Map<String, int[]> REFERENCE = new TreeMap<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--shim" -> shim = Path.of(args[++i]);
                case "--inputs" -> inputs = Path.of(args[++i]);
                case "--out-of-scope" -> outOfScopeFile = Path.of(args[++i]);
                case "--report" -> report = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--test-timeout" -> testTimeout = args[++i];
                case "--jvm-timeout" -> jvmTimeoutSecs = Integer.parseInt(args[++i]);
                case "--force" -> force = true;
                case "--reference" -> referenceClasspath = Path.of(args[++i]);
                case "--only" -> only = args[++i];
                case "--reference-file" -> referenceFile = Path.of(args[++i]);
                default -> {
                    System.err.println("conformance: unknown option " + a);
                    System.exit(2);
                }
            }
        }
        System.exit(run());
    }

    static Path testsJar() { return inputs.resolve("conformance/storm-client-tests.jar"); }
    static Path consoleJar() { return inputs.resolve("conformance/junit-console.jar"); }
    static Path stormJar() { return inputs.resolve("conformance/storm-client.jar"); }

    static int run() throws Exception {
        for (Path p : List.of(testsJar(), consoleJar(), stormJar(), inputs.resolve("lib"))) {
            if (!Files.exists(p)) return fail(p + " is missing: run conformance/run (it resolves the inputs with Maven)");
        }
        if (referenceClasspath == null && !Files.isRegularFile(shim)) {
            return fail(shim + " is missing: build the shim first (./egret-dev build)");
        }

        if (referenceClasspath == null && Files.exists(referenceFile)) {
            for (String line : Files.readAllLines(referenceFile)) {
                String[] f = line.split("\t");
                if (f.length == 3 && f[1].matches("\\d+")) {
                    REFERENCE.put(f[0], new int[] {Integer.parseInt(f[1]), Integer.parseInt(f[2])});
                }
            }
        }

        // 1. The test classes, in scope or not.
        List<String> testClasses = new ArrayList<>();
        try (ZipFile z = new ZipFile(testsJar().toFile())) {
            for (ZipEntry e : Collections.list(z.entries())) {
                String n = e.getName();
                if (!n.endsWith(".class") || n.contains("$")) continue;
                String cls = n.substring(0, n.length() - 6).replace('/', '.');
                if (TEST_NAME.matcher(simpleName(cls)).matches()) testClasses.add(cls);
            }
        }
        Collections.sort(testClasses);
        Map<String, String> outRules = readOutOfScope();
        Map<String, String> outOfScope = new TreeMap<>();
        List<String> selected = new ArrayList<>();
        List<String> unclassified = new ArrayList<>();
        Set<String> usedRules = new HashSet<>();
        for (String cls : testClasses) {
            String rule = matchRule(outRules, cls);
            if (rule != null) {
                usedRules.add(rule);
                outOfScope.put(cls, outRules.get(rule));
            } else if (inScope(cls)) {
                selected.add(cls);
            } else {
                unclassified.add(cls);
            }
        }
        if (!unclassified.isEmpty()) {
            return fail("these test classes are neither in scope nor listed in " + outOfScopeFile
                    + " (add each with its reason):\n  " + String.join("\n  ", unclassified));
        }
        for (String rule : outRules.keySet()) {
            if (!usedRules.contains(rule)) warn(outOfScopeFile + ": '" + rule + "' matches no test class of the jar");
        }
        if (only != null) selected.removeIf(c -> !c.contains(only));

        // 2. The classpath, and that storm-client's classes come from the shim only.
        List<Path> cp = new ArrayList<>();
        if (referenceClasspath != null) {
            for (String s : Files.readString(referenceClasspath).trim().split(File.pathSeparator)) cp.add(Path.of(s));
        } else {
            cp.add(shim);
        }
        cp.add(testsJar());
        try (Stream<Path> s = Files.list(inputs.resolve("lib"))) {
            s.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(cp::add);
        }
        cp.add(consoleJar());
        String leak = referenceClasspath == null ? checkNoStormClientLeak(cp) : null;
        if (leak != null) return fail(leak);
        URLClassLoader loader = new URLClassLoader(
                cp.stream().map(Conformance::url).toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        Class<?> config = Class.forName("org.apache.storm.Config", false, loader);
        Path configFrom = Path.of(config.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (referenceClasspath == null && !Files.isSameFile(configFrom, shim)) {
            return fail("org.apache.storm.Config loads from " + configFrom + ", not from the shim " + shim);
        }
        System.out.println("conformance: org.apache.storm.Config loads from " + configFrom);

        // 3. Classes that cannot even link.
        StormJar storm = new StormJar(stormJar());
        Map<String, ClassResult> results = new TreeMap<>();
        List<String> runnable = new ArrayList<>();
        ZipFile testsZip = new ZipFile(testsJar().toFile());
        for (String cls : selected) {
            ClassResult r = new ClassResult(cls);
            r.nonPublic = storm.nonPublicRefs(testsZip, cls);
            results.put(cls, r);
            String missing = linkCheck(cls, loader);
            if (missing != null) {
                r.loadFailure = missing;
                r.notes.add(missing.startsWith("!") ? "link error `" + shorten(missing.substring(1), 160) + "`"
                        : describeMissing(missing, storm));
            } else {
                runnable.add(cls);
            }
        }

        // 4. Run, one JVM per package.
        deleteTree(work);
        Files.createDirectories(work);
        String classpath = cp.stream().map(p -> p.toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
        Map<String, List<String>> byPackage = new TreeMap<>();
        for (String cls : runnable) byPackage.computeIfAbsent(packageOf(cls), k -> new ArrayList<>()).add(cls);
        long start = System.nanoTime();
        for (Map.Entry<String, List<String>> e : byPackage.entrySet()) {
            runBatch(e.getKey(), e.getValue(), classpath, results, storm);
        }

        // 5. Compare with the committed report; re-run regressed classes alone once.
        boolean compare = referenceClasspath == null && only == null;
        Map<String, Integer> before = compare ? readPasses(report) : Map.of();
        List<String> regressed = regressions(results, before);
        if (!regressed.isEmpty()) {
            System.out.println("conformance: fewer passes than " + report + " in " + regressed.size()
                    + " class(es); re-running each alone once: " + String.join(", ", regressed));
            for (String cls : regressed) {
                ClassResult old = results.get(cls);
                ClassResult fresh = new ClassResult(cls);
                Map<String, ClassResult> one = new TreeMap<>(Map.of(cls, fresh));
                runBatch("rerun-" + cls, List.of(cls), classpath, one, storm);
                if (fresh.passed() > old.passed()) results.put(cls, fresh);
            }
            regressed = regressions(results, before);
        }
        long secs = (System.nanoTime() - start) / 1_000_000_000L;

        String md = render(results, outOfScope);
        Path target = report;
        if (!compare) {
            target = work.resolve(referenceClasspath != null ? "conformance-reference.md" : "conformance-only.md");
        } else if (!regressed.isEmpty() && !force) {
            target = work.resolve("conformance.md");
        }
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.writeString(target, md);

        if (referenceClasspath != null && only == null) {
            StringBuilder tsv = new StringBuilder("# class\tpassed\ttotal on the real storm-client 2.8.3 classpath"
                    + " (written by conformance/run --reference; read for docs/conformance.md's \"on Storm\" column)\n");
            for (ClassResult r : results.values()) {
                tsv.append(r.cls).append('\t').append(r.passed()).append('\t').append(r.total()).append('\n');
            }
            Files.writeString(referenceFile, tsv);
            System.out.println("conformance: wrote " + referenceFile);
        }

        int tests = 0, passed = 0, full = 0;
        for (ClassResult r : results.values()) {
            tests += countedTotal(r);
            passed += r.passed();
            if (r.fullyPasses()) full++;
        }
        System.out.printf("conformance: %d of %d tests pass in scope; %d of %d classes pass fully; %d s of tests; report %s%n",
                passed, tests, full, results.size(), secs, target);
        if (!regressed.isEmpty()) {
            System.out.println("conformance: REGRESSION: these classes pass fewer tests than " + report + " says:");
            for (String cls : regressed) {
                System.out.printf("  %s: %d passed, was %d%n", cls, results.get(cls).passed(), before.get(cls));
            }
            System.out.println("(the committed report is unchanged; the new one is " + target
                    + "; to accept the drop deliberately, run conformance/run --force and commit it)");
            return 1;
        }
        if (compare) {
            List<String> better = new ArrayList<>();
            for (ClassResult r : results.values()) {
                Integer b = before.get(r.cls);
                if (b == null || r.passed() > b) better.add(simpleName(r.cls) + " " + (b == null ? "new" : b) + " -> " + r.passed());
            }
            if (!better.isEmpty() && !before.isEmpty()) {
                System.out.println("conformance: more passes than the committed report (commit " + report + "): "
                        + String.join(", ", better));
            }
        }
        return 0;
    }

    // ---------------------------------------------------------------- scope

    static Map<String, String> readOutOfScope() throws IOException {
        Map<String, String> rules = new LinkedHashMap<>();
        for (String line : Files.readAllLines(outOfScopeFile)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) continue;
            String[] parts = t.split("\\s+", 2);
            if (parts.length < 2 || parts[1].isBlank()) {
                throw new IllegalArgumentException(outOfScopeFile + ": '" + t + "' has no reason");
            }
            rules.put(parts[0], parts[1].strip());
        }
        return rules;
    }

    /** A rule is a class name, "pkg.*" for a package's classes, or "pkg.**" for those of its subpackages too. */
    static String matchRule(Map<String, String> rules, String cls) {
        if (rules.containsKey(cls)) return cls;
        String pkg = packageOf(cls);
        String best = null;
        for (String rule : rules.keySet()) {
            boolean hit = false;
            if (rule.endsWith(".**")) {
                String p = rule.substring(0, rule.length() - 3);
                hit = pkg.equals(p) || pkg.startsWith(p + ".");
            } else if (rule.endsWith(".*")) {
                hit = pkg.equals(rule.substring(0, rule.length() - 2));
            }
            if (hit && (best == null || rule.length() > best.length())) best = rule;
        }
        return best;
    }

    static boolean inScope(String cls) {
        if (SCOPE_CLASSES.contains(cls)) return true;
        String pkg = packageOf(cls);
        for (String p : SCOPE_PACKAGES) if (pkg.equals(p) || pkg.startsWith(p + ".")) return true;
        return false;
    }

    // ---------------------------------------------------------------- classpath

    /** Null when no jar but the shim (and the tests jar's test classes) has org.apache.storm classes. */
    static String checkNoStormClientLeak(List<Path> cp) throws IOException {
        Set<String> markers = Set.of("org/apache/storm/Config.class", "org/apache/storm/topology/TopologyBuilder.class",
                "org/apache/storm/tuple/Fields.class", "org/apache/storm/utils/Utils.class");
        for (Path jar : cp) {
            if (jar.equals(shim)) continue;
            boolean tests = jar.equals(testsJar());
            try (ZipFile z = new ZipFile(jar.toFile())) {
                for (ZipEntry e : Collections.list(z.entries())) {
                    String n = e.getName();
                    if (markers.contains(n)) return jar + " carries storm-client's " + n + ": it must come from the shim only";
                    if (tests || !n.startsWith("org/apache/storm/") || !n.endsWith(".class")) continue;
                    if (n.startsWith("org/apache/storm/shade/") || n.startsWith("org/apache/storm/thrift/")) continue;
                    return jar + " carries " + n + ", a class of storm-client's packages: only the shim may";
                }
            }
        }
        return null;
    }

    /** Null when the class links (as JUnit's discovery would reflect on it), else the missing class or member. */
    static String linkCheck(String cls, ClassLoader loader) {
        try {
            Class<?> c = Class.forName(cls, false, loader);
            Deque<Class<?>> todo = new ArrayDeque<>(List.of(c));
            while (!todo.isEmpty()) {
                Class<?> k = todo.pop();
                for (Class<?> s = k; s != null && s != Object.class; s = s.getSuperclass()) {
                    s.getDeclaredMethods();
                    s.getDeclaredFields();
                    s.getDeclaredConstructors();
                    s.getGenericInterfaces();
                }
                todo.addAll(Arrays.asList(k.getDeclaredClasses()));
            }
            return null;
        } catch (NoClassDefFoundError | ClassNotFoundException e) {
            return e.getMessage() == null ? e.toString() : e.getMessage().replace('/', '.');
        } catch (TypeNotPresentException e) {
            return e.typeName();
        } catch (LinkageError e) {
            return "!" + e;
        }
    }

    // ---------------------------------------------------------------- running

    static void runBatch(String name, List<String> classes, String classpath, Map<String, ClassResult> results,
                         StormJar storm) throws Exception {
        Path reports = work.resolve("reports").resolve(name);
        Path log = work.resolve("logs").resolve(name + ".log");
        Files.createDirectories(reports);
        Files.createDirectories(log.getParent());
        Path home = work.resolve("storm-home");
        Files.createDirectories(home);
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx2g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dstorm.home=" + home.toAbsolutePath(), "-Djava.io.tmpdir=" + work.toAbsolutePath(),
                "-cp", classpath,
                "org.junit.platform.console.ConsoleLauncher", "execute",
                "--disable-banner", "--disable-ansi-colors", "--details=testfeed",
                "--reports-dir=" + reports.toAbsolutePath(),
                "--config=junit.jupiter.execution.timeout.default=" + testTimeout));
        for (String tag : EXCLUDED_TAGS) cmd.add("--exclude-tag=" + tag);
        for (String cls : classes) cmd.add("--select-class=" + cls);
        // Run in the work directory: what the tests (and Mockito's agent attach) leave in the
        // working directory stays there.
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(log.toAbsolutePath().toFile());
        long t0 = System.nanoTime();
        Process p = pb.start();
        boolean done = p.waitFor(jvmTimeoutSecs, TimeUnit.SECONDS);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        long secs = (System.nanoTime() - t0) / 1_000_000_000L;
        // The report counts only when the JVM ended by itself and JUnit's XML is whole (a killed
        // JVM can leave it half written).
        Map<String, List<TestCase>> cases = new HashMap<>();
        boolean reported = done && Files.exists(reports.resolve("TEST-junit-jupiter.xml"));
        if (reported) {
            try (Stream<Path> s = Files.list(reports)) {
                for (Path xml : s.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).toList()) {
                    parseXml(xml, cases);
                }
            } catch (Exception e) {
                warn(reports + ": unreadable JUnit report (" + e + ")");
                cases.clear();
                reported = false;
            }
        }
        if (!reported && classes.size() > 1) {
            // A test ended or hung the JVM before JUnit wrote the report: run each class alone,
            // so only the class that did it loses its results.
            System.out.printf("conformance: %-45s %3d class(es) %4d s  (%s; each class again alone)%n", name,
                    classes.size(), secs, done ? "the JVM exited with " + p.exitValue() + " before its report"
                            : "killed after " + jvmTimeoutSecs + " s");
            for (String cls : classes) runBatch(name + "-" + simpleName(cls), List.of(cls), classpath, results, storm);
            return;
        }
        System.out.printf("conformance: %-45s %3d class(es) %4d s%s%n", name, classes.size(), secs,
                !done ? "  (killed after " + jvmTimeoutSecs + " s)"
                        : !reported ? "  (the JVM exited with " + p.exitValue() + " before its report)" : "");
        for (String cls : classes) {
            ClassResult r = results.get(cls);
            r.cases = cases.getOrDefault(cls, List.of());
            if (!reported && classes.size() == 1) {
                // No XML: what the console's test feed printed before the JVM ended.
                r.cases = fromTestFeed(log);
                TestCase last = r.cases.stream().filter(t -> t.status.equals("started")).findFirst().orElse(null);
                r.cases.forEach(t -> { if (t.status.equals("started")) t.status = "error"; });
                r.notes.add((done ? "a test ended the JVM (exit code " + p.exitValue() + ")" : "the JVM was killed after " + jvmTimeoutSecs + " s")
                        + (last != null ? " in `" + last.name + "`" : "")
                        + "; counted from the console's test feed (failures are counted as errors)");
            }
            for (TestCase tc : r.cases) {
                if (tc.detail != null) r.causes.addAll(causes(tc.detail, cls, storm));
            }
        }
    }

    static final Pattern FEED = Pattern.compile("^JUnit (?:Jupiter|Vintage) > (.+) :: (STARTED|SUCCESSFUL|FAILED|ABORTED|SKIPPED)\\b");

    /** The leaf tests of a console test feed, each with its last status ("started" if it never ended). */
    static List<TestCase> fromTestFeed(Path log) throws IOException {
        Map<String, String> status = new LinkedHashMap<>();
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            Matcher m = FEED.matcher(line);
            if (m.find()) status.put(m.group(1), m.group(2));
        }
        List<TestCase> out = new ArrayList<>();
        for (Map.Entry<String, String> e : status.entrySet()) {
            String key = e.getKey();
            if (!key.contains(" > ")) continue; // the class itself
            if (status.keySet().stream().anyMatch(k -> k.startsWith(key + " > "))) continue; // a container
            TestCase t = new TestCase();
            t.name = key.substring(key.indexOf(" > ") + 3);
            t.status = switch (e.getValue()) {
                case "SUCCESSFUL" -> "passed";
                case "FAILED" -> "error";
                case "STARTED" -> "started";
                default -> "skipped";
            };
            out.add(t);
        }
        return out;
    }

    static void parseXml(Path xml, Map<String, List<TestCase>> cases) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        Document doc = f.newDocumentBuilder().parse(xml.toFile());
        NodeList list = doc.getElementsByTagName("testcase");
        for (int i = 0; i < list.getLength(); i++) {
            Element tc = (Element) list.item(i);
            String cls = tc.getAttribute("classname");
            int dollar = cls.indexOf('$');
            if (dollar >= 0) cls = cls.substring(0, dollar);
            TestCase t = new TestCase();
            t.name = tc.getAttribute("name");
            t.status = "passed";
            for (String kind : List.of("skipped", "failure", "error")) {
                NodeList n = tc.getElementsByTagName(kind);
                if (n.getLength() > 0) {
                    t.status = kind;
                    Element el = (Element) n.item(0);
                    t.detail = el.getAttribute("type") + ": " + el.getAttribute("message") + "\n" + el.getTextContent();
                }
            }
            cases.computeIfAbsent(cls, k -> new ArrayList<>()).add(t);
        }
    }

    static final Pattern NO_CLASS = Pattern.compile("(?:NoClassDefFoundError|ClassNotFoundException): (?!Could not)([\\w$./]+)");
    static final Pattern NO_INIT = Pattern.compile("NoClassDefFoundError: Could not initialize class ([\\w$.]+)");
    static final Pattern NO_METHOD = Pattern.compile("NoSuchMethodError: '([^']+)'");
    static final Pattern NO_FIELD = Pattern.compile("NoSuchFieldError: (?:Class (\\S+) does not have member field '[^']* )?([\\w$]+)'?");
    static final Pattern ILLEGAL = Pattern.compile("IllegalAccessError: ([^\\n]+)");
    static final Pattern UNSUPPORTED = Pattern.compile("UnsupportedOperationException: ([^\\n]+)");

    /** What a failure's text says the shim lacks (missing classes and members, unsupported operations). */
    static List<String> causes(String text, String testClass, StormJar storm) {
        List<String> out = new ArrayList<>();
        Matcher m = NO_CLASS.matcher(text);
        while (m.find()) {
            String c = m.group(1).replace('/', '.');
            if (c.endsWith(".")) c = c.substring(0, c.length() - 1);
            if (c.contains(".")) out.add(describeMissing(c, storm));
        }
        m = NO_INIT.matcher(text);
        while (m.find()) out.add("class `" + m.group(1) + "` failed its static initialization");
        m = NO_METHOD.matcher(text);
        while (m.find()) out.add(describeMethod(m.group(1), storm));
        m = NO_FIELD.matcher(text);
        while (m.find()) out.add(describeField(m.group(1), m.group(2), testClass, storm));
        m = ILLEGAL.matcher(text);
        while (m.find()) out.add("illegal access (the test reaches a non-public member): " + shorten(m.group(1), 160));
        m = UNSUPPORTED.matcher(text);
        while (m.find()) out.add("unsupported: " + shorten(m.group(1), 120));
        return out.stream().distinct().toList();
    }

    static String describeMissing(String cls, StormJar storm) {
        cls = cls.replace('/', '.');
        Integer access = storm.classAccess(cls);
        if (access == null) {
            return cls.startsWith("org.apache.storm.") && !cls.startsWith("org.apache.storm.shade.")
                    ? "missing class `" + cls + "`"
                    : "missing class `" + cls + "` (not in storm-client: a library)";
        }
        return "missing class `" + cls + "`" + ((access & 0x0001) == 0 ? " (package-private in Storm)" : "");
    }

    /** m is e.g. "void org.apache.storm.X.foo(java.util.Map)". */
    static String describeMethod(String m, StormJar storm) {
        int paren = m.indexOf('(');
        String head = paren < 0 ? m : m.substring(0, paren);
        int space = head.lastIndexOf(' ');
        String qualified = head.substring(space + 1);
        int dot = qualified.lastIndexOf('.');
        String owner = dot < 0 ? "" : qualified.substring(0, dot);
        String name = qualified.substring(dot + 1);
        String what = "missing method `" + shorten(m, 160) + "`";
        Boolean nonPublic = storm.memberNonPublic(owner, name, false);
        return nonPublic != null && nonPublic ? what + " (non-public in Storm)" : what;
    }

    static String describeField(String owner, String field, String testClass, StormJar storm) {
        if (owner != null) {
            Boolean nonPublic = storm.memberNonPublic(owner, field, true);
            return "missing field `" + owner + "." + field + "`" + (nonPublic != null && nonPublic ? " (non-public in Storm)" : "");
        }
        // JDK 17 names only the field: look for it in the test's package (package-private access
        // is only possible from there).
        String found = storm.findField(packageOf(testClass), field);
        return found != null ? "missing field `" + found : "missing field `" + field + "`";
    }

    // ---------------------------------------------------------------- comparison and report

    static List<String> regressions(Map<String, ClassResult> results, Map<String, Integer> before) {
        List<String> out = new ArrayList<>();
        for (ClassResult r : results.values()) {
            Integer b = before.get(r.cls);
            if (b != null && r.passed() < b) out.add(r.cls);
        }
        return out;
    }

    /** class -> passed, from the "By class" table of a report this program wrote. */
    static Map<String, Integer> readPasses(Path md) throws IOException {
        Map<String, Integer> out = new HashMap<>();
        if (!Files.exists(md)) return out;
        for (String line : Files.readAllLines(md)) {
            if (!line.startsWith("|")) continue;
            String[] cells = line.split("\\|", -1);
            // "", package, class, passed, failed, errors, skipped, total, notes, ""
            if (cells.length < 10) continue;
            String pkg = cells[1].strip().replace("`", "");
            String cls = cells[2].strip().replace("`", "");
            String passed = cells[3].strip();
            if (!passed.matches("\\d+") || !pkg.startsWith("org.apache.storm")) continue;
            out.put(pkg + "." + cls, Integer.parseInt(passed));
        }
        return out;
    }

    static String render(Map<String, ClassResult> results, Map<String, String> outOfScope) {
        StringBuilder b = new StringBuilder();
        int tests = 0, passed = 0, full = 0, unloadable = 0, refPassed = 0, refTests = 0;
        for (ClassResult r : results.values()) {
            tests += countedTotal(r);
            passed += r.passed();
            if (r.fullyPasses()) full++;
            if (r.loadFailure != null) unloadable++;
            int[] ref = REFERENCE.get(r.cls);
            if (ref != null) {
                refPassed += ref[0];
                refTests += ref[1];
            }
        }
        b.append("# Storm's own unit tests on the shim (generated)\n\n");
        b.append("Written by `conformance/run` (the `conformance` step of `./egret-dev test` runs it after the shim is built;\n");
        b.append("regenerate with `./egret-dev build && conformance/run`). Do not edit by hand: the step fails when a class\n");
        b.append("passes fewer tests than this file says, and rewrites it when more pass (commit it then).\n\n");
        b.append("What runs: storm-client 2.8.3's own published test classes (`org.apache.storm:storm-client:2.8.3:jar:tests`,\n");
        b.append("unchanged) of the topology-facing packages, on JUnit's console launcher, with `java-shim/target/egret-shim.jar`\n");
        b.append("in place of storm-client, plus storm-shaded-deps (on every Storm worker's classpath) and storm-client's test\n");
        b.append("dependencies (`conformance/pom.xml`); the run checks that `org.apache.storm.Config` loads from the shim jar.\n");
        b.append("Test classes are chosen by package, whether they pass or not: ");
        b.append(SCOPE_PACKAGES.stream().map(p -> "`" + p.substring("org.apache.storm.".length()) + "`").collect(Collectors.joining(", ")));
        b.append(" (with their subpackages), and ");
        b.append(SCOPE_CLASSES.stream().map(c -> "`" + simpleName(c) + "`").collect(Collectors.joining(", ")));
        b.append(";\nthe classes that test Storm internals Egret deliberately does not have are listed at the end, each with its\n");
        b.append("reason (`conformance/out-of-scope.txt`). As in Storm's unit-test run, Surefire's class-name patterns apply and\n");
        b.append("the tags ").append(EXCLUDED_TAGS.stream().map(t -> "`" + t + "`").collect(Collectors.joining(" and ")));
        b.append(" are excluded. Each package runs in its own JVM (Storm forks one per class),\n");
        b.append("with a per-test timeout of ").append(testTimeout.replace(" ", "")).append(" and ").append(jvmTimeoutSecs);
        b.append(" s per JVM. A class that cannot even link on the shim is not run; its missing class is named\n");
        b.append("and the total of every class is the larger of the tests that ran and those it has on Storm. \"on Storm\" is\nthe same run on the real storm-client");
        b.append(" 2.8.3 classpath (`conformance/run --reference`, kept in `conformance/storm-reference.tsv`): passed/total.\n\n");
        b.append(String.format("**%d of %d tests pass in scope (%d%%); %d of %d classes pass fully.**", passed, tests,
                tests == 0 ? 0 : Math.round(100.0 * passed / tests), full, results.size()));
        if (unloadable > 0) b.append(String.format(" %d classes do not load on the shim.", unloadable));
        if (refTests > 0) b.append(String.format(" On storm-client itself: %d of %d.", refPassed, refTests));
        b.append("\n\n## By class\n\n");
        b.append("`errors` are exceptions other than assertion failures (e.g. a missing class or method); a note names what the\n");
        b.append("failures say the shim lacks, and marks members that are non-public in Storm (the test relies on a\n");
        b.append("package-private or private detail there).\n\n");
        b.append("| package | class | passed | failed | errors | skipped | total | on Storm | notes |\n");
        b.append("|---|---|---|---|---|---|---|---|---|\n");
        for (ClassResult r : results.values()) {
            List<String> notes = new ArrayList<>(r.notes);
            if (r.loadFailure != null) notes.set(0, "does not load: " + notes.get(0));
            else if (r.cases.isEmpty() && r.notes.isEmpty()) notes.add("no tests ran");
            List<String> causes = new ArrayList<>(r.causes);
            if (causes.size() > 3) {
                int more = causes.size() - 3;
                causes = new ArrayList<>(causes.subList(0, 3));
                causes.add("and " + more + " more");
            }
            notes.addAll(causes);
            if (causes.isEmpty() && r.loadFailure == null) {
                r.cases.stream().filter(t -> t.detail != null && !t.status.equals("skipped")).findFirst()
                        .ifPresent(t -> notes.add("e.g. `" + shorten(firstLine(t.detail), 140).replace("`", "'") + "`"));
            }
            int[] ref = REFERENCE.get(r.cls);
            b.append(String.format("| `%s` | %s | %d | %d | %d | %d | %s | %s | %s |%n",
                    packageOf(r.cls), simpleName(r.cls), r.passed(),
                    r.count("failure"), r.count("error"), r.count("skipped"),
                    r.loadFailure != null && ref == null ? "?" : String.valueOf(countedTotal(r)),
                    ref == null ? "" : ref[0] + "/" + ref[1],
                    String.join("; ", notes).replace("|", "\\|")));
        }

        // What the failures point at, most tests first.
        Map<String, Set<String>> classesBy = new TreeMap<>();
        Map<String, Integer> testsBy = new HashMap<>();
        for (ClassResult r : results.values()) {
            if (r.loadFailure != null) {
                String key = r.notes.get(0);
                classesBy.computeIfAbsent(key, k -> new TreeSet<>()).add(simpleName(r.cls));
                testsBy.merge(key, countedTotal(r), Integer::sum);
            }
            for (TestCase tc : r.cases) {
                if (tc.detail == null) continue;
                for (String c : causes(tc.detail, r.cls, CAUSE_STORM)) {
                    classesBy.computeIfAbsent(c, k -> new TreeSet<>()).add(simpleName(r.cls));
                    testsBy.merge(c, 1, Integer::sum);
                }
            }
        }
        if (!classesBy.isEmpty()) {
            b.append("\n## What the failures point at\n\n");
            b.append("Each missing class or member, or unsupported operation, named by a failure; the classes whose tests name it\n");
            b.append("(\"does not load\" ones included, with all their tests on Storm) and how many tests. Most tests first.\n\n");
            b.append("| cause | tests | classes |\n|---|---|---|\n");
            List<String> keys = new ArrayList<>(classesBy.keySet());
            keys.sort(Comparator.comparing((String k) -> -testsBy.getOrDefault(k, 0))
                    .thenComparing(k -> -classesBy.get(k).size()).thenComparing(k -> k));
            for (String k : keys) {
                b.append(String.format("| %s | %d | %s |%n", k.replace("|", "\\|"), testsBy.getOrDefault(k, 0),
                        String.join(", ", classesBy.get(k))));
            }
        }

        b.append("\n## Non-public details the tests rely on\n\n");
        b.append("The storm-client classes and members each test class refers to (read from its bytecode) that are neither\n");
        b.append("public nor protected in Storm: package-private unless marked private (the JVM lets a class of the same\n");
        b.append("package reach package-private ones, since the tests sit in Storm's packages). The shim has to match these\n");
        b.append("details for such a test to pass, which Storm's public API does not ask of it.\n\n");
        b.append("| class | non-public in Storm |\n|---|---|\n");
        for (ClassResult r : results.values()) {
            if (r.nonPublic.isEmpty()) continue;
            b.append(String.format("| %s | %s |%n", simpleName(r.cls),
                    r.nonPublic.stream().map(m -> "`" + m.replace(" (private)", "") + "`" + (m.endsWith(" (private)") ? " (private)" : ""))
                            .collect(Collectors.joining(", "))));
        }

        b.append("\n## Out of scope\n\n");
        b.append("Test classes of the jar not run, each with its reason (`conformance/out-of-scope.txt`).\n\n");
        b.append("| class | reason |\n|---|---|\n");
        for (Map.Entry<String, String> e : outOfScope.entrySet()) {
            b.append(String.format("| `%s` | %s |%n", e.getKey(), e.getValue().replace("|", "\\|")));
        }
        return b.toString();
    }

    /**
     * The tests a class counts for: the larger of those that ran and those it has on Storm (a class
     * that does not load, or whose JVM ended early, ran fewer or none).
     */
    static int countedTotal(ClassResult r) {
        int[] ref = REFERENCE.get(r.cls);
        return ref != null ? Math.max(r.total(), ref[1]) : r.total();
    }

    /** Set once the Storm jar is open; the report recomputes causes with it. */
    static StormJar CAUSE_STORM;

    // ---------------------------------------------------------------- model

    static final class TestCase {
        String name;
        String status; // passed, failure, error, skipped
        String detail;
    }

    static final class ClassResult {
        final String cls;
        List<TestCase> cases = List.of();
        String loadFailure;
        final List<String> notes = new ArrayList<>();
        final LinkedHashSet<String> causes = new LinkedHashSet<>();
        Set<String> nonPublic = Set.of();

        ClassResult(String cls) { this.cls = cls; }

        int count(String status) { return (int) cases.stream().filter(t -> t.status.equals(status)).count(); }
        int passed() { return count("passed"); }
        int total() { return cases.size(); }
        boolean fullyPasses() { return loadFailure == null && total() > 0 && passed() + count("skipped") == total(); }
    }

    /**
     * The real storm-client jar, read as bytes only (never loaded): whether a class or member
     * a test misses exists there and is public.
     */
    static final class StormJar {
        private final ZipFile zip;
        private final Map<String, ClassInfo> cache = new HashMap<>();

        StormJar(Path jar) throws IOException {
            zip = new ZipFile(jar.toFile());
            CAUSE_STORM = this;
        }

        ClassInfo info(String cls) {
            return cache.computeIfAbsent(cls, c -> {
                ZipEntry e = zip.getEntry(c.replace('.', '/') + ".class");
                if (e == null) return null;
                try (InputStream in = zip.getInputStream(e)) {
                    return ClassInfo.parse(in.readAllBytes());
                } catch (IOException | RuntimeException ex) {
                    return null;
                }
            });
        }

        Integer classAccess(String cls) {
            ClassInfo i = info(cls);
            return i == null ? null : i.access;
        }

        /** null: not found; true: every member of that name is neither public nor protected. */
        Boolean memberNonPublic(String cls, String name, boolean field) {
            ClassInfo i = info(cls);
            if (i == null) return null;
            List<Integer> flags = (field ? i.fields : i.methods).get(name);
            if (flags == null) return null;
            return flags.stream().allMatch(a -> (a & 0x0005) == 0);
        }

        /**
         * The storm-client classes and members a test class (its nested classes included, read from
         * the tests jar) refers to that are neither public nor protected in Storm.
         */
        Set<String> nonPublicRefs(ZipFile tests, String testClass) throws IOException {
            Set<String> out = new TreeSet<>();
            String prefix = testClass.replace('.', '/');
            for (ZipEntry e : Collections.list(tests.entries())) {
                String n = e.getName();
                if (!n.equals(prefix + ".class") && !(n.startsWith(prefix + "$") && n.endsWith(".class"))) continue;
                ClassInfo test;
                try (InputStream in = tests.getInputStream(e)) {
                    test = ClassInfo.parse(in.readAllBytes());
                }
                for (String[] ref : test.refs) {
                    String owner = ref[1];
                    if (owner == null || owner.startsWith("[") || !owner.startsWith("org/apache/storm/")) continue;
                    ClassInfo target = info(owner.replace('/', '.'));
                    if (target == null) continue; // not storm-client's (a test class, or a shaded library)
                    String shortOwner = owner.substring(owner.lastIndexOf('/') + 1);
                    if (ref[0].equals("7")) {
                        if ((target.access & 0x0001) == 0) out.add("class " + shortOwner);
                        continue;
                    }
                    Integer access = target.byDescriptor.get(ref[2] + ref[3]);
                    if (access == null || (access & 0x0005) != 0) continue;
                    String what = shortOwner + "." + ref[2] + (ref[0].equals("9") ? "" : "()");
                    out.add(what + ((access & 0x0002) != 0 ? " (private)" : ""));
                }
            }
            return out;
        }

        /** "Owner.field` (non-public in Storm)"-style text for a field of that name in the package, or null. */
        String findField(String pkg, String field) {
            String prefix = pkg.replace('.', '/') + "/";
            for (ZipEntry e : Collections.list(zip.entries())) {
                String n = e.getName();
                if (!n.startsWith(prefix) || !n.endsWith(".class") || n.substring(prefix.length()).contains("/")) continue;
                String cls = n.substring(0, n.length() - 6).replace('/', '.');
                ClassInfo i = info(cls);
                if (i == null || !i.fields.containsKey(field)) continue;
                boolean nonPublic = i.fields.get(field).stream().allMatch(a -> (a & 0x0005) == 0);
                return cls + "." + field + "`" + (nonPublic ? " (non-public in Storm)" : "");
            }
            return null;
        }
    }

    /** The access flags of a class file's class, fields and methods. */
    static final class ClassInfo {
        int access;
        final Map<String, List<Integer>> fields = new HashMap<>();
        final Map<String, List<Integer>> methods = new HashMap<>();
        /** name + descriptor -> access, fields and methods. */
        final Map<String, Integer> byDescriptor = new HashMap<>();
        /** The member references of the class's constant pool: {kind (9 field, 10/11 method, 7 class), owner, name, descriptor}. */
        final List<String[]> refs = new ArrayList<>();

        static ClassInfo parse(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != 0xCAFEBABE) throw new IOException("not a class file");
            in.readUnsignedShort();
            in.readUnsignedShort();
            int n = in.readUnsignedShort();
            String[] utf8 = new String[n];
            int[] tags = new int[n], a1 = new int[n], a2 = new int[n];
            for (int i = 1; i < n; i++) {
                int tag = in.readUnsignedByte();
                tags[i] = tag;
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 3, 4 -> in.readInt();
                    case 5, 6 -> { in.readLong(); i++; }
                    case 7, 8, 16, 19, 20 -> a1[i] = in.readUnsignedShort();
                    case 9, 10, 11, 12, 17, 18 -> { a1[i] = in.readUnsignedShort(); a2[i] = in.readUnsignedShort(); }
                    case 15 -> { in.readUnsignedByte(); in.readUnsignedShort(); }
                    default -> throw new IOException("constant pool tag " + tag);
                }
            }
            ClassInfo info = new ClassInfo();
            for (int i = 1; i < n; i++) {
                if (tags[i] == 7) {
                    info.refs.add(new String[] {"7", utf8[a1[i]], null, null});
                } else if (tags[i] == 9 || tags[i] == 10 || tags[i] == 11) {
                    int nat = a2[i];
                    info.refs.add(new String[] {String.valueOf(tags[i]), utf8[a1[a1[i]]], utf8[a1[nat]], utf8[a2[nat]]});
                }
            }
            info.access = in.readUnsignedShort();
            in.readUnsignedShort();
            in.readUnsignedShort();
            int interfaces = in.readUnsignedShort();
            for (int i = 0; i < interfaces; i++) in.readUnsignedShort();
            for (Map<String, List<Integer>> members : List.of(info.fields, info.methods)) {
                int count = in.readUnsignedShort();
                for (int i = 0; i < count; i++) {
                    int access = in.readUnsignedShort();
                    String name = utf8[in.readUnsignedShort()];
                    String desc = utf8[in.readUnsignedShort()];
                    info.byDescriptor.put(name + desc, access);
                    int attrs = in.readUnsignedShort();
                    for (int a = 0; a < attrs; a++) {
                        in.readUnsignedShort();
                        in.skipNBytes(in.readInt() & 0xFFFFFFFFL);
                    }
                    members.computeIfAbsent(name, k -> new ArrayList<>()).add(access);
                }
            }
            return info;
        }
    }

    // ---------------------------------------------------------------- helpers

    static String packageOf(String cls) {
        int dot = cls.lastIndexOf('.');
        return dot < 0 ? "" : cls.substring(0, dot);
    }

    static String simpleName(String cls) { return cls.substring(cls.lastIndexOf('.') + 1); }

    /** "type: message" of a report's failure text, on one line. */
    static String firstLine(String detail) {
        String line = detail.lines().findFirst().orElse("");
        if (line.endsWith(": ")) line = line.substring(0, line.length() - 2);
        return line.replaceAll("\\s+", " ");
    }

    static String shorten(String s, int max) {
        s = s.strip();
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    static URL url(Path p) {
        try {
            return p.toAbsolutePath().toUri().toURL();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    static void warn(String msg) { System.err.println("conformance: warning: " + msg); }

    static int fail(String msg) {
        System.err.println("conformance: " + msg);
        return 2;
    }
}

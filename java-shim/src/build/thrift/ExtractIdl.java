import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipFile;

/**
 * Writes the Thrift IDL facts of storm-client's {@code org.apache.storm.generated} package:
 * type names, field ids, wire types, requiredness and default values, read through the
 * public Thrift metadata ({@code metaDataMap}, {@code _Fields}, {@code TEnum}) of the real jar.
 * No source is read or copied: the output is an interface description from which
 * {@code regenerate.sh} generates Egret's own Java with the Apache Thrift compiler.
 *
 * <p>Usage (JDK source launcher): {@code java ExtractIdl storm-client.jar storm-shaded-deps.jar
 * out.thrift}. Only needed when the Storm version the shim targets changes.
 */
public final class ExtractIdl {
  private static final String PKG = "org.apache.storm.generated.";
  private static final String T = "org.apache.storm.thrift.";

  private final ClassLoader loader;
  private final Class<?> tBase;
  private final Class<?> tUnion;
  private final Class<?> tEnum;
  private final Class<?> tException;

  private ExtractIdl(ClassLoader loader) throws Exception {
    this.loader = loader;
    this.tBase = loader.loadClass(T + "TBase");
    this.tUnion = loader.loadClass(T + "TUnion");
    this.tEnum = loader.loadClass(T + "TEnum");
    this.tException = loader.loadClass(T + "TException");
  }

  public static void main(String[] args) throws Exception {
    URL[] urls = {Paths.get(args[0]).toUri().toURL(), Paths.get(args[1]).toUri().toURL()};
    try (URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
        PrintStream out = new PrintStream(Files.newOutputStream(Paths.get(args[2])), true, "UTF-8")) {
      new ExtractIdl(loader).write(Paths.get(args[0]), out);
    }
  }

  private void write(Path jar, PrintStream out) throws Exception {
    Set<String> names = new TreeSet<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      zip.stream()
          .map(e -> e.getName())
          .filter(n -> n.startsWith("org/apache/storm/generated/") && n.endsWith(".class") && !n.contains("$"))
          .forEach(n -> names.add(n.substring("org/apache/storm/generated/".length(), n.length() - ".class".length())));
    }
    out.println("// Thrift IDL facts of Storm's org.apache.storm.generated types, extracted by");
    out.println("// ExtractIdl.java from storm-client's Thrift metadata. Regenerate the Java with regenerate.sh.");
    out.println("namespace java org.apache.storm.generated");
    out.println();
    List<Class<?>> enums = new ArrayList<>();
    Map<String, Class<?>> structs = new LinkedHashMap<>();
    List<Class<?>> services = new ArrayList<>();
    for (String name : names) {
      Class<?> c = loader.loadClass(PKG + name);
      if (c.isEnum() && tEnum.isAssignableFrom(c)) {
        enums.add(c);
      } else if (tBase.isAssignableFrom(c)) {
        structs.put(name, c);
      } else if (hasNested(c, "Iface")) {
        services.add(c);
      }
    }
    for (Class<?> e : enums) {
      out.println("enum " + e.getSimpleName() + " {");
      Object[] constants = e.getEnumConstants();
      for (int i = 0; i < constants.length; i++) {
        int value = (int) e.getMethod("getValue").invoke(constants[i]);
        out.println("  " + ((Enum<?>) constants[i]).name() + " = " + value + (i + 1 < constants.length ? "," : ""));
      }
      out.println("}");
      out.println();
    }
    // Structs in dependency order: the compiler resolves forward references only by name.
    Set<String> done = new LinkedHashSet<>();
    for (String name : structs.keySet()) {
      emitStruct(name, structs, done, new LinkedHashSet<>(), out);
    }
    for (Class<?> s : services) {
      emitService(s, out);
    }
  }

  private static boolean hasNested(Class<?> c, String simple) {
    for (Class<?> n : c.getDeclaredClasses()) {
      if (n.getSimpleName().equals(simple)) {
        return true;
      }
    }
    return false;
  }

  private void emitStruct(String name, Map<String, Class<?>> structs, Set<String> done, Set<String> visiting, PrintStream out)
      throws Exception {
    if (done.contains(name) || visiting.contains(name)) {
      return;
    }
    visiting.add(name);
    Class<?> c = structs.get(name);
    List<FieldFact> fields = fields(c);
    for (FieldFact f : fields) {
      for (String dep : f.structRefs) {
        if (structs.containsKey(dep)) {
          emitStruct(dep, structs, done, visiting, out);
        }
      }
    }
    String kind = tUnion.isAssignableFrom(c) ? "union" : tException.isAssignableFrom(c) ? "exception" : "struct";
    out.println(kind + " " + name + " {");
    Object fresh = kind.equals("union") ? null : c.getConstructor().newInstance();
    for (FieldFact f : fields) {
      String def = "";
      if (fresh != null) {
        Object fieldEnum = f.fieldEnum;
        boolean set = (boolean) c.getMethod("isSet", fieldEnum.getClass()).invoke(fresh, fieldEnum);
        if (set) {
          Object v = c.getMethod("getFieldValue", fieldEnum.getClass()).invoke(fresh, fieldEnum);
          def = " = " + literal(v);
        }
      }
      out.println("  " + f.id + ": " + f.req + f.type + " " + f.name + def + ";");
    }
    out.println("}");
    out.println();
    visiting.remove(name);
    done.add(name);
  }

  private String literal(Object v) {
    if (v instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    if (v instanceof Enum<?> e) {
      return e.getDeclaringClass().getSimpleName() + "." + e.name();
    }
    if (v instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (v instanceof Number) {
      return v.toString();
    }
    if (v instanceof Collection<?> col) {
      List<String> items = new ArrayList<>();
      for (Object o : col) {
        items.add(literal(o));
      }
      return "[" + String.join(", ", items) + "]";
    }
    if (v instanceof Map<?, ?> map) {
      List<String> items = new ArrayList<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        items.add(literal(e.getKey()) + ": " + literal(e.getValue()));
      }
      return "{" + String.join(", ", items) + "}";
    }
    throw new IllegalStateException("no IDL literal for " + v.getClass());
  }

  static final class FieldFact {
    short id;
    String name;
    String req;
    String type;
    Object fieldEnum;
    final Set<String> structRefs = new LinkedHashSet<>();
  }

  private List<FieldFact> fields(Class<?> c) throws Exception {
    Map<?, ?> meta = (Map<?, ?>) c.getField("metaDataMap").get(null);
    Class<?> fieldsEnum = null;
    for (Class<?> n : c.getDeclaredClasses()) {
      if (n.getSimpleName().equals("_Fields")) {
        fieldsEnum = n;
      }
    }
    List<FieldFact> out = new ArrayList<>();
    if (fieldsEnum == null) {
      return out;
    }
    for (Object constant : fieldsEnum.getEnumConstants()) {
      FieldFact f = new FieldFact();
      f.fieldEnum = constant;
      f.id = (short) fieldsEnum.getMethod("getThriftFieldId").invoke(constant);
      f.name = (String) fieldsEnum.getMethod("getFieldName").invoke(constant);
      Object fmd = meta.get(constant);
      byte req = (byte) get(fmd, "requirementType");
      f.req = req == 1 ? "required " : req == 2 ? "optional " : "";
      f.type = type(get(fmd, "valueMetaData"), f.structRefs);
      out.add(f);
    }
    return out;
  }

  private String type(Object vmd, Set<String> refs) throws Exception {
    byte t = (byte) get(vmd, "type");
    boolean typedef = (boolean) vmd.getClass().getMethod("isTypedef").invoke(vmd);
    String simple = vmd.getClass().getSimpleName();
    switch (simple) {
      case "StructMetaData": {
        String n = ((Class<?>) get(vmd, "structClass")).getSimpleName();
        refs.add(n);
        return n;
      }
      case "EnumMetaData":
        return ((Class<?>) get(vmd, "enumClass")).getSimpleName();
      case "ListMetaData":
        return "list<" + type(get(vmd, "elemMetaData"), refs) + ">";
      case "SetMetaData":
        return "set<" + type(get(vmd, "elemMetaData"), refs) + ">";
      case "MapMetaData":
        return "map<" + type(get(vmd, "keyMetaData"), refs) + "," + type(get(vmd, "valueMetaData"), refs) + ">";
      default:
        break;
    }
    if (typedef && t == 12) {
      String n = (String) vmd.getClass().getMethod("getTypedefName").invoke(vmd);
      refs.add(n);
      return n;
    }
    switch (t) {
      case 2: return "bool";
      case 3: return "byte";
      case 4: return "double";
      case 6: return "i16";
      case 8: return "i32";
      case 10: return "i64";
      case 11: return (boolean) vmd.getClass().getMethod("isBinary").invoke(vmd) ? "binary" : "string";
      default: throw new IllegalStateException("unknown Thrift type " + t);
    }
  }

  private static Object get(Object o, String field) throws Exception {
    Field f = o.getClass().getField(field);
    return f.get(o);
  }

  private void emitService(Class<?> svc, PrintStream out) throws Exception {
    Class<?> iface = null;
    Map<String, Class<?>> nested = new LinkedHashMap<>();
    for (Class<?> n : svc.getDeclaredClasses()) {
      nested.put(n.getSimpleName(), n);
      if (n.getSimpleName().equals("Iface")) {
        iface = n;
      }
    }
    out.println("service " + svc.getSimpleName() + " {");
    for (Method m : iface.getDeclaredMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      Class<?> argsClass = nested.get(m.getName() + "_args");
      Class<?> resultClass = nested.get(m.getName() + "_result");
      String ret = "void";
      List<String> throwsList = new ArrayList<>();
      if (resultClass != null) {
        for (FieldFact f : fields(resultClass)) {
          if (f.id == 0) {
            ret = f.type;
          } else {
            throwsList.add(f.id + ": " + f.type + " " + f.name);
          }
        }
      }
      List<String> params = new ArrayList<>();
      for (FieldFact f : fields(argsClass)) {
        params.add(f.id + ": " + f.type + " " + f.name);
      }
      String oneway = resultClass == null ? "oneway " : "";
      out.println("  " + oneway + ret + " " + m.getName() + "(" + String.join(", ", params) + ")"
          + (throwsList.isEmpty() ? "" : " throws (" + String.join(", ", throwsList) + ")") + ";");
    }
    out.println("}");
    out.println();
  }
}

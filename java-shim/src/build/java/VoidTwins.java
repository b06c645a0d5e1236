import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Build step (not part of the shim jar): adds {@code void}-returning twins of methods to
 * compiled classes, for binary compatibility with jars compiled against Storm 1.x.
 *
 * <p>Storm 1.x's {@code LocalCluster.submitTopology(String, Map, StormTopology)} returns
 * {@code void}; 2.x's returns {@code LocalCluster$LocalTopology}. A call site names the
 * return type in its descriptor, so a 1.x jar fails with {@code NoSuchMethodError} on a
 * 2.x-shaped class. Java source cannot declare two methods differing only in return type,
 * but the class file format allows it: for each requested method this tool adds
 * {@code name(params)V} whose body calls {@code name(params)R} (invokevirtual, so
 * overrides apply) and discards the result. The twin has the original's access flags and
 * exceptions plus {@code ACC_SYNTHETIC}, so that javac ignores it when compiling against
 * the shim (no ambiguity for 2.x sources) while the JVM links 1.x call sites to it.
 *
 * <p>Usage (run at {@code process-classes} by maven, see java-shim/pom.xml), with ASM on
 * the class path and this file run by the JDK's source launcher:
 * <pre>
 * java -cp asm.jar VoidTwins.java CLASSES_DIR internal/ClassName:method:(params) ...
 * </pre>
 * Idempotent: a twin already present is left as it is (incremental builds re-run the step
 * on an unchanged class). Fails if a requested method does not exist or returns
 * {@code void} already.
 */
public final class VoidTwins {
    private VoidTwins() {
    }

    /** One requested twin: method name and parameter descriptor, e.g. {@code (Ljava/lang/String;)}. */
    private record Spec(String name, String params) {
        String voidDescriptor() {
            return params + "V";
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: VoidTwins CLASSES_DIR internal/ClassName:method:(params)...");
            System.exit(2);
        }
        Path classes = Path.of(args[0]);
        java.util.Map<String, List<Spec>> byClass = new java.util.LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String[] parts = args[i].split(":", 3);
            if (parts.length != 3 || !parts[2].startsWith("(") || !parts[2].endsWith(")")) {
                throw new IllegalArgumentException("bad spec '" + args[i] + "', want internal/ClassName:method:(params)");
            }
            byClass.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(new Spec(parts[1], parts[2]));
        }
        for (java.util.Map.Entry<String, List<Spec>> e : byClass.entrySet()) {
            Path file = classes.resolve(e.getKey() + ".class");
            byte[] in = Files.readAllBytes(file);
            byte[] out = addTwins(in, e.getValue());
            if (out != in) {
                Files.write(file, out);
                System.out.println("[VoidTwins] " + e.getKey() + ": added " + e.getValue().size() + " void twin(s)");
            } else {
                System.out.println("[VoidTwins] " + e.getKey() + ": twins already present");
            }
        }
    }

    /** The original method a twin calls. */
    private record Target(int access, String descriptor, String[] exceptions) {
    }

    /** Returns {@code in} itself when every twin is already there, else the rewritten class. */
    static byte[] addTwins(byte[] in, List<Spec> specs) {
        ClassReader reader = new ClassReader(in);
        String owner = reader.getClassName();
        java.util.Map<Spec, Target> targets = new java.util.LinkedHashMap<>();
        java.util.Set<Spec> present = new java.util.HashSet<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                for (Spec s : specs) {
                    if (!s.name.equals(name) || !descriptor.startsWith(s.params)) {
                        continue;
                    }
                    String ret = descriptor.substring(s.params.length());
                    if (ret.equals("V")) {
                        present.add(s);
                    } else if ((access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE | Opcodes.ACC_STATIC)) == 0
                            && (ret.startsWith("L") || ret.startsWith("["))) {
                        targets.put(s, new Target(access, descriptor, exceptions));
                    }
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        List<Spec> missing = new ArrayList<>();
        for (Spec s : specs) {
            if (!present.contains(s) && !targets.containsKey(s)) {
                throw new IllegalStateException(owner + "." + s.name + s.params
                        + ": no non-static method returning an object to twin");
            }
            if (!present.contains(s)) {
                missing.add(s);
            }
        }
        if (missing.isEmpty()) {
            return in;
        }
        // Nothing computed: the class's own methods are copied as they are, and the twins are
        // straight-line code (no stack map frames) whose maxima addTwin states.
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visitEnd() {
                for (Spec s : missing) {
                    addTwin(cv, owner, s, targets.get(s));
                }
                super.visitEnd();
            }
        }, 0);
        return writer.toByteArray();
    }

    private static void addTwin(ClassVisitor cv, String owner, Spec s, Target t) {
        int access = (t.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED | Opcodes.ACC_PRIVATE))
                | Opcodes.ACC_SYNTHETIC;
        MethodVisitor mv = cv.visitMethod(access, s.name, s.voidDescriptor(), null, t.exceptions);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        int slot = 1;
        for (Type arg : Type.getArgumentTypes(t.descriptor)) {
            mv.visitVarInsn(arg.getOpcode(Opcodes.ILOAD), slot);
            slot += arg.getSize();
        }
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, owner, s.name, t.descriptor, false);
        mv.visitInsn(Opcodes.POP);
        mv.visitInsn(Opcodes.RETURN);
        // Stack: this and the arguments, then the one result; locals: this and the arguments.
        mv.visitMaxs(slot, slot);
        mv.visitEnd();
    }
}

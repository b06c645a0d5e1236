package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SubmitterMainTest {
    static String[] seen;

    public static class Ok {
        public static void main(String[] args) {
            seen = args;
        }
    }

    public static class Throws {
        public static void main(String[] args) {
            throw new IllegalStateException("boom");
        }
    }

    /** The superclass {@link OnlyChildLoader} hides: a dependency missing from the "jar". */
    public static class MissingBase {
    }

    /** A main class that is there but cannot link: its superclass is missing. */
    public static class NeedsMissingBase extends MissingBase {
        public static void main(String[] args) {
            seen = args;
        }
    }

    /**
     * A class loader holding {@link NeedsMissingBase} but not {@link MissingBase}, as a jar
     * built without one of its dependencies; everything else comes from the parent.
     */
    static final class OnlyChildLoader extends ClassLoader {
        OnlyChildLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (name.equals(MissingBase.class.getName())) {
                    throw new ClassNotFoundException(name);
                }
                if (!name.equals(NeedsMissingBase.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                String resource = name.replace('.', '/') + ".class";
                try (InputStream in = getParent().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    /** Exit code and stderr of {@code SubmitterMain.run(args)} with {@code loader} as context loader. */
    private static Object[] runCapturingStderr(ClassLoader loader, String... args) {
        PrintStream savedErr = System.err;
        Thread thread = Thread.currentThread();
        ClassLoader savedLoader = thread.getContextClassLoader();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            thread.setContextClassLoader(loader);
            int code = SubmitterMain.run(args);
            return new Object[] {code, err.toString(StandardCharsets.UTF_8)};
        } finally {
            thread.setContextClassLoader(savedLoader);
            System.setErr(savedErr);
        }
    }

    private static int occurrences(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    @Test
    void exitCodes() {
        assertEquals(0, SubmitterMain.run(new String[] {Ok.class.getName(), "a", "b"}));
        assertEquals(2, seen.length);
        assertEquals("b", seen[1]);
        assertEquals(1, SubmitterMain.run(new String[] {Throws.class.getName()}));
        assertEquals(2, SubmitterMain.run(new String[] {"com.example.Missing"}));
    }

    @Test
    void aMainClassNotInTheJarIsReportedOnceAsNotFound() {
        Object[] result = runCapturingStderr(SubmitterMainTest.class.getClassLoader(), "com.example.Missing");
        assertEquals(SubmitterMain.NOT_FOUND, result[0]);
        assertEquals("Error: main class com.example.Missing not found in the classpath\n", result[1]);
    }

    @Test
    void aMainClassWithAMissingDependencyNamesTheMissingClassOnce() {
        seen = null;
        ClassLoader loader = new OnlyChildLoader(SubmitterMainTest.class.getClassLoader());
        String main = NeedsMissingBase.class.getName();
        Object[] result = runCapturingStderr(loader, main, "x");
        String err = (String) result[1];
        assertEquals(SubmitterMain.NOT_LINKED, result[0], err);
        assertEquals(
                "Error: main class " + main + " is in the classpath but cannot be loaded: the class "
                        + MissingBase.class.getName() + " it needs is missing (NoClassDefFoundError; add the"
                        + " jar that holds it to the topology jar)\n",
                err);
        assertEquals(1, occurrences(err, MissingBase.class.getName()), err);
        assertFalse(err.contains("not found"), err);
        assertEquals(null, seen, "main must not have run");
    }
}

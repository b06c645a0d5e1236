package dev.egret.client;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * Entry point of the JVM {@code egret jar|local} starts: runs the user's main class the way
 * {@code storm jar} does, then ends the JVM.
 *
 * <p>Exit codes (contracts.md "Submission"): 0 after main returns, 1 if main threw (stack
 * trace on stderr), 2 if the main class is not in the jar, 3 if it is there but cannot be
 * linked (a class it needs is missing, or another {@link LinkageError}). For 2 and 3 the
 * one error line on stderr is this class's; {@code egret} does not repeat it.
 */
public final class SubmitterMain {
    /** Exit code: the main class is not in the jar. */
    static final int NOT_FOUND = 2;
    /** Exit code: the main class is in the jar but cannot be linked. */
    static final int NOT_LINKED = 3;

    private SubmitterMain() {
    }

    /**
     * The one error line for a main class that is present but fails to link: names the
     * missing class for a {@link NoClassDefFoundError} (whose message is the missing class in
     * internal form, {@code a/b/C}), else the error as the JVM gives it.
     */
    static String linkageMessage(String mainClass, String jar, LinkageError e) {
        // "C (wrong name: D)": the class file found is another class; not a missing one.
        if (e instanceof NoClassDefFoundError && e.getMessage() != null && !e.getMessage().contains(" ")) {
            String missing = e.getMessage().replace('/', '.');
            return "Error: main class " + mainClass + " is in " + jar + " but cannot be loaded: the class "
                    + missing + " it needs is missing (NoClassDefFoundError; add the jar that holds it"
                    + " to the topology jar)";
        }
        return "Error: main class " + mainClass + " is in " + jar + " but cannot be loaded: " + e;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: SubmitterMain <main-class> [args..]");
            return 1;
        }
        String mainClass = args[0];
        String[] userArgs = Arrays.copyOfRange(args, 1, args.length);
        String jar = System.getProperty("storm.jar", "the classpath");
        ClassLoader loader;
        try {
            // The user's jar (egret.topology.classpath), below the shim; main() and every thread
            // it starts resolve classes through it.
            loader = dev.egret.runtime.TopologyClassLoader.install();
        } catch (java.io.UncheckedIOException e) {
            System.err.println("Error: " + e.getMessage());
            return 1;
        }
        Class<?> klass;
        try {
            klass = Class.forName(mainClass, true, loader);
        } catch (ClassNotFoundException e) {
            // Thrown for the class named, never for a class it needs (that is a
            // NoClassDefFoundError): the main class itself is not there.
            System.err.println("Error: main class " + mainClass + " not found in " + jar);
            return NOT_FOUND;
        } catch (ExceptionInInitializerError e) {
            // A static initializer of the main class threw: main "threw".
            e.printStackTrace();
            return 1;
        } catch (LinkageError e) {
            System.err.println(linkageMessage(mainClass, jar, e));
            return NOT_LINKED;
        } catch (Throwable t) {
            t.printStackTrace();
            return 1;
        }
        Method main;
        try {
            main = klass.getMethod("main", String[].class);
        } catch (LinkageError e) {
            // getMethod resolves the types of every public method's signature.
            System.err.println(linkageMessage(mainClass, jar, e));
            return NOT_LINKED;
        } catch (NoSuchMethodException e) {
            System.err.println("Error: main class " + mainClass + " has no public static void main(String[])");
            return 1;
        }
        if (!Modifier.isStatic(main.getModifiers())) {
            System.err.println("Error: main class " + mainClass + " has no public static void main(String[])");
            return 1;
        }
        try {
            main.invoke(null, (Object) userArgs);
            return 0;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            System.err.print("Exception in thread \"main\" ");
            cause.printStackTrace();
            return 1;
        } catch (IllegalAccessException e) {
            System.err.println("Error: main method of " + mainClass + " is not accessible: " + e.getMessage());
            return 1;
        }
    }
}

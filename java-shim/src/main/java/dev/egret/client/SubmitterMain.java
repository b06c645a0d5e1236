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
 * trace on stderr), 2 if the main class is not in the jar.
 */
public final class SubmitterMain {
    private SubmitterMain() {
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
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = SubmitterMain.class.getClassLoader();
        }
        Class<?> klass;
        try {
            klass = Class.forName(mainClass, true, loader);
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            String jar = System.getProperty("storm.jar", "the classpath");
            System.err.println("Error: main class " + mainClass + " not found in " + jar);
            return 2;
        } catch (Throwable t) {
            // A static initializer of the main class failed: main "threw".
            t.printStackTrace();
            return 1;
        }
        Method main;
        try {
            main = klass.getMethod("main", String[].class);
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

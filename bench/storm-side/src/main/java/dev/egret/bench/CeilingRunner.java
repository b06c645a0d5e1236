package dev.egret.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.apache.storm.generated.Nimbus;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;

/**
 * {@code egret bench --ceiling}'s JVM: runs the user's main against the real
 * storm-client with Storm's local-Nimbus override set to a recorder, so that
 * {@code StormSubmitter} (and anything using {@code NimbusClient}) reaches no
 * cluster; the first topology submitted is then run by {@link Ceiling} in the
 * submitting thread, until the process is killed (or for
 * {@code -Degret.ceiling.run.secs} seconds, then shut down cleanly).
 *
 * <p>Usage, as {@code storm jar}: {@code java -cp <storm>:<this jar>:<jar>
 * -Dstorm.jar=<jar> -Dstorm.options=<conf> dev.egret.bench.CeilingRunner <main> <args>}.
 * The topology config is what {@code StormSubmitter} sends Nimbus (the main's
 * config with {@code storm.options} merged), over Storm's defaults.
 */
public final class CeilingRunner {
    /** Runs the ceiling for that many seconds, then shuts it down and exits (default: until killed). */
    public static final String RUN_SECS = "egret.ceiling.run.secs";

    private CeilingRunner() {}

    /** What a submission hands over. */
    @FunctionalInterface
    public interface Submission {
        void submitted(String name, Map<String, Object> topologyConf, StormTopology topology) throws Exception;
    }

    public static void main(String[] args) throws Throwable {
        if (args.length < 1) {
            System.err.println("usage: CeilingRunner <main class> [args...]");
            System.exit(2);
        }
        String runSecs = System.getProperty(RUN_SECS);
        long deadline = runSecs == null ? Long.MAX_VALUE : System.nanoTime() + Long.parseLong(runSecs) * 1_000_000_000L;
        runMain(args[0], Arrays.copyOfRange(args, 1, args.length), (name, topologyConf, topology) -> {
            Map<String, Object> conf = new HashMap<>(Utils.readStormConfig());
            conf.putAll(topologyConf);
            Ceiling ceiling = new Ceiling(name + "-ceiling-1", topology, conf);
            System.out.println("egret ceiling: running topology " + name + " (" + topology.get_spouts_size()
                    + " spout(s), " + topology.get_bolts_size() + " bolt(s)) in one thread");
            ceiling.prepare();
            ceiling.runUntil(deadline);
            ceiling.shutdown();
            System.out.println("egret ceiling: stopped after " + runSecs + " s");
            System.exit(0);
        });
        System.err.println("egret ceiling: " + args[0] + ".main returned without submitting a topology");
        System.exit(1);
    }

    /**
     * Calls {@code mainClass.main(args)} with the Nimbus override set to a
     * recorder that hands each submitted topology to {@code onSubmit} (in the
     * submitting thread: {@code StormSubmitter.submitTopology} returns when it does).
     */
    public static void runMain(String mainClass, String[] args, Submission onSubmit) throws Throwable {
        Nimbus.Iface recorder = recorder(onSubmit);
        try (NimbusClient.LocalOverride override = new NimbusClient.LocalOverride(recorder)) {
            Method main = Class.forName(mainClass, true, Thread.currentThread().getContextClassLoader())
                    .getMethod("main", String[].class);
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** A Nimbus that accepts uploads and submissions and answers everything else with empty values. */
    static Nimbus.Iface recorder(Submission onSubmit) {
        InvocationHandler handler = (proxy, method, margs) -> {
            switch (method.getName()) {
                case "isTopologyNameAllowed":
                    return true;
                case "beginFileUpload":
                    return "/egret-ceiling/" + UUID.randomUUID() + ".jar";
                case "submitTopology":
                case "submitTopologyWithOpts": {
                    // (name, uploadedJarLocation, jsonConf, topology[, options])
                    String name = (String) margs[0];
                    Map<String, Object> conf = Utils.parseJson((String) margs[2]);
                    onSubmit.submitted(name, conf, (StormTopology) margs[3]);
                    return null;
                }
                case "toString":
                    return "egret ceiling's recording Nimbus";
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == margs[0];
                default:
                    return emptyValue(method.getReturnType());
            }
        };
        return (Nimbus.Iface) Proxy.newProxyInstance(Nimbus.Iface.class.getClassLoader(),
                new Class<?>[] {Nimbus.Iface.class}, handler);
    }

    private static Object emptyValue(Class<?> type) throws ReflectiveOperationException {
        if (type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0.0;
        }
        if (type.isPrimitive()) {
            return null;
        }
        if (type == String.class) {
            return "";
        }
        if (!type.isInterface() && !Modifier.isAbstract(type.getModifiers())) {
            try {
                return type.getConstructor().newInstance();
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
        return null;
    }
}

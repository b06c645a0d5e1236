package org.apache.storm;

import dev.egret.client.Submitter;
import dev.egret.client.SubmitterHooks;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.storm.generated.AlreadyAliveException;
import org.apache.storm.generated.AuthorizationException;
import org.apache.storm.generated.InvalidTopologyException;
import org.apache.storm.generated.NotAliveException;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.SubmitOptions;
import org.apache.storm.generated.TopologyInitialStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits topologies to the Egret cluster that launched this JVM ({@code egret jar} or
 * {@code egret local}). Same entry points and exceptions as Storm's; the jar is already
 * known to egret, so there is no upload.
 */
public class StormSubmitter {
    public static final Logger LOG = LoggerFactory.getLogger(StormSubmitter.class);
    public static final Pattern zkDigestPattern = Pattern.compile("\\S+:\\S+");

    public StormSubmitter() {
    }

    public static boolean validateZKDigestPayload(String payload) {
        return payload != null && zkDigestPattern.matcher(payload).matches();
    }

    /** ZooKeeper authentication does not apply to Egret: returns a copy of the config. */
    public static Map<String, Object> prepareZookeeperAuthentication(Map<String, Object> conf) {
        return new java.util.HashMap<>(conf);
    }

    /** Credentials are not supported by Egret: nothing is pushed. */
    public static boolean pushCredentials(String name, Map<String, Object> topoConf, Map<String, String> credentials)
            throws AuthorizationException, NotAliveException, InvalidTopologyException {
        return pushCredentials(name, topoConf, credentials, null);
    }

    /** Credentials are not supported by Egret: nothing is pushed. */
    public static boolean pushCredentials(String name, Map<String, Object> topoConf, Map<String, String> credentials,
            String expectedUser) throws AuthorizationException, NotAliveException, InvalidTopologyException {
        LOG.warn("Egret does not support credentials; nothing was pushed for topology {}", name);
        return false;
    }

    public static void submitTopology(String name, Map<String, Object> topoConf, StormTopology topology)
            throws AlreadyAliveException, InvalidTopologyException, AuthorizationException {
        submitTopology(name, topoConf, topology, null, null);
    }

    public static void submitTopology(String name, Map<String, Object> topoConf, StormTopology topology,
            SubmitOptions opts) throws AlreadyAliveException, InvalidTopologyException, AuthorizationException {
        submitTopology(name, topoConf, topology, opts, null);
    }

    public static void submitTopology(String name, Map<String, Object> topoConf, StormTopology topology,
            SubmitOptions opts, ProgressListener progressListener)
            throws AlreadyAliveException, InvalidTopologyException, AuthorizationException {
        submitTopologyAs(name, topoConf, topology, opts, progressListener, null);
    }

    /**
     * Submits a topology.
     *
     * @throws IllegalArgumentException if the config is not JSON-serializable or holds a bad value
     * @throws InvalidTopologyException if the topology is malformed or egret refused it
     * @throws AlreadyAliveException if a topology of that name is running
     * @throws org.apache.storm.hooks.SubmitterHookException if the submitter hook
     *     ({@code storm.topology.submission.notifier.plugin.class}) cannot be created or fails;
     *     the topology is submitted by then
     */
    public static void submitTopologyAs(String name, Map<String, Object> topoConf, StormTopology topology,
            SubmitOptions opts, ProgressListener progressListener, String asUser)
            throws AlreadyAliveException, InvalidTopologyException, AuthorizationException, IllegalArgumentException {
        if (opts != null && opts.get_initial_status() == TopologyInitialStatus.INACTIVE) {
            LOG.warn("Topology {} asked to start INACTIVE; Egret starts topologies active", name);
        }
        String jar = System.getProperty("storm.jar", "");
        long size = jar.isEmpty() ? 0L : new java.io.File(jar).length();
        if (progressListener != null) {
            progressListener.onStart(jar, jar, size);
        }
        Submitter.Submitted submitted = Submitter.submitMerged(name, topoConf, topology);
        if (progressListener != null) {
            progressListener.onProgress(jar, jar, size, size);
            progressListener.onCompleted(jar, jar, size);
        }
        SubmitterHooks.notifyHook(name, submitted.topologyId(), submitted.conf(), topology);
    }

    public static void submitTopologyWithProgressBar(String name, Map<String, Object> topoConf,
            StormTopology topology) throws AlreadyAliveException, InvalidTopologyException, AuthorizationException {
        submitTopologyWithProgressBar(name, topoConf, topology, null);
    }

    public static void submitTopologyWithProgressBar(String name, Map<String, Object> topoConf,
            StormTopology topology, SubmitOptions opts)
            throws AlreadyAliveException, InvalidTopologyException, AuthorizationException {
        // The jar is not uploaded (egret already has it), so there is no progress to show.
        submitTopology(name, topoConf, topology, opts, null);
    }

    /** The jar is already known to egret; returns its path as the "uploaded" location. */
    public static String submitJar(Map<String, Object> conf, String localJar) {
        return submitJar(conf, localJar, null);
    }

    public static String submitJar(Map<String, Object> conf, String localJar, ProgressListener listener) {
        return submitJarAs(conf, localJar, listener, (String) null);
    }

    public static String submitJarAs(Map<String, Object> conf, String localJar, ProgressListener listener,
            String asUser) {
        if (localJar == null) {
            throw new RuntimeException("Must submit topologies using the 'egret' client script so that "
                    + "StormSubmitter knows which jar to upload.");
        }
        return localJar;
    }

    /**
     * Storm uploads the jar through the given Nimbus client; Egret's jar is already known
     * to it (the client script passes it), so the client is not used and the path returned.
     */
    public static String submitJarAs(Map<String, Object> conf, String localJar, ProgressListener listener,
            org.apache.storm.utils.NimbusClient client) {
        return submitJarAs(conf, localJar, listener, (String) null);
    }

    /** Receives upload progress (called once at start and once at the end in Egret). */
    public interface ProgressListener {
        void onStart(String srcFile, String targetFile, long totalBytes);

        void onProgress(String srcFile, String targetFile, long bytesUploaded, long totalBytes);

        void onCompleted(String srcFile, String targetFile, long totalBytes);
    }
}

package dev.egret.connectors;

import java.util.List;
import java.util.Map;
import org.apache.storm.generated.ErrorInfo;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;

/**
 * Prints the errors a running topology's tasks reported ({@code reportError}), as Nimbus's
 * {@code TopologyInfo.errors} holds them: one line per error, {@code ERROR <component>
 * <time secs> <first line of the error>}, then {@code ERRORS <total>}. Submits nothing.
 *
 * <p>Arguments: {@code NAME} (the topology's).
 */
public final class TopologyErrors {
    private TopologyErrors() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: TopologyErrors NAME");
        }
        Map<String, Object> conf = Utils.readStormConfig();
        int total = 0;
        try (NimbusClient nimbus = NimbusClient.getConfiguredClient(conf)) {
            TopologyInfo info = nimbus.getClient().getTopologyInfoByName(args[0]);
            for (Map.Entry<String, List<ErrorInfo>> e : info.get_errors().entrySet()) {
                for (ErrorInfo error : e.getValue()) {
                    System.out.println("ERROR " + e.getKey() + " " + error.get_error_time_secs() + " "
                            + error.get_error().lines().findFirst().orElse(""));
                    total++;
                }
            }
        }
        System.out.println("ERRORS " + total);
    }
}
